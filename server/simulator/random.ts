import crypto from 'node:crypto';

/**
 * Seeded randomness for the simulator. Every draw comes from a stream keyed by the parts that
 * name it (seed, what is drawn, for which task...), never from a shared sequence: adding a task
 * or a step therefore does not reshuffle the draws of the others, and the order in which the
 * simulator asks does not matter.
 */

type Part = string | number;

/** Length-prefixed join, so ('ab', 'c') and ('a', 'bc') name different streams. */
const streamKey = (parts: readonly Part[]) => parts.map((p) => `${String(p).length}:${p}`).join('');

/** 32-bit FNV-1a over the key's UTF-16 units, finished with murmur3's fmix32 for avalanche. */
function hash32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A splitmix32 generator: tiny state, full 2^32 period, well mixed output. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    z ^= z >>> 15;
    return (z >>> 0) / 4294967296;
  }

  uniform(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [low, high], both included. */
  between(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffled<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

/** The generator of one named stream, e.g. rngFor(seed, 'outcome', phase, taskId, attempt). */
export const rngFor = (...parts: Part[]) => new Rng(hash32(streamKey(parts)));

// crypto.hash (Node 20.12+) is one native call where a Hash object is three and an allocation;
// event ids are hashed per event (bench/, materialise profile). package.json allows Node 20.10.
export const sha256Hex: (data: string | Uint8Array) => string =
  typeof crypto.hash === 'function' ? (data) => crypto.hash('sha256', data) : (data) => crypto.createHash('sha256').update(data).digest('hex');

/**
 * SHA-256 over parts each written as `<UTF-8 byte length in decimal>:<UTF-8 bytes>`, the identity
 * encoding of the SDK's RLEventEmitter; used for every id the simulator mints so none can collide
 * by shifting text between parts.
 */
export const digestParts = (...parts: Part[]) =>
  sha256Hex(parts.map((p) => `${Buffer.byteLength(String(p), 'utf8')}:${p}`).join(''));
