import { createHash, type Hash } from 'node:crypto';
import { DomainError } from '../errors.js';

/** What arrived of an upload: its bytes, hashed as they came. */
export interface ReceivedUpload {
  data: Buffer;
  sha256: string;
}

export const uploadTooLarge = (limit: number) =>
  new DomainError('invalid', 'asset_too_large', `the upload is larger than this server's limit of ${limit} bytes (max_import_bytes in GET /v1/assets)`);

/**
 * Takes an upload's chunks as they stream in: each is hashed and kept, and the chunk that would
 * take the total past the limit, or past what the memory bounds grant (`hold`), is refused before
 * it is kept, so no more than the limit is ever held. `received` counts what came, kept or not,
 * for the request journal.
 */
export class UploadCollector {
  private readonly hash: Hash = createHash('sha256');
  private readonly chunks: Buffer[] = [];
  received = 0;

  constructor(
    readonly limit: number,
    private readonly hold: UploadHold,
  ) {}

  push(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.received > this.limit) throw uploadTooLarge(this.limit);
    this.hold.cover(this.received);
    this.hash.update(chunk);
    this.chunks.push(chunk);
  }

  finish(): ReceivedUpload {
    return { data: Buffer.concat(this.chunks, this.received), sha256: this.hash.digest('hex') };
  }
}

/** What an upload holds of the memory bounds; released once its answer is sent or its connection gone. */
export interface UploadHold {
  /** Covers `total` bytes of this upload; throws, holding nothing more, when it cannot. */
  cover(total: number): void;
  release(): void;
}
