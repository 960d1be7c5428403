import { Rng, rngFor } from './random.js';

/**
 * Task identities and the text of simulated attempts. A task's text depends only on the taskset
 * and the task id (a held-out split is fixed data, whatever the run's seed); the model's reply
 * depends on the attempt and agrees with its outcome: a passed reply holds the right answer, a
 * failed one a wrong answer with the slip that led to it, an errored one stops part way.
 */

export type Outcome = 'passed' | 'failed' | 'error';

export interface AttemptTrace {
  /** The task as the model saw it. */
  input: string;
  /** The model's reply (cut short for errors); its SHA-256 is the grading candidate. */
  output: string;
  /** What was checked and what the check found. */
  verifier: string;
}

/** `reasoning-gym/leg_counting` → `leg_counting`, `nodus/gsm8k@1.0.0` → `gsm8k`. */
export function tasksetPrefix(taskset: string): string {
  const last = taskset.split('/').filter(Boolean).pop() ?? '';
  const name = last.split('@')[0].replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
  return name || 'task';
}

const pad4 = (i: number) => String(i).padStart(4, '0');
export const heldOutTaskId = (prefix: string, index: number) => `${prefix}/heldout/${pad4(index)}`;
export const trainTaskId = (prefix: string, index: number) => `${prefix}/train/${pad4(index)}`;

export const ERROR_MESSAGES = [
  'attempt timed out after 120 s',
  'sandbox exited with code 137 (out of memory)',
  'inference server closed the connection mid-generation',
  'verifier raised an exception while parsing the reply',
] as const;

/** A generated task: its text, and the reply a model gives when right or when it slips. */
interface Problem {
  input: string;
  answer: string;
  /** The full reply; with `slip` it reaches a wrong answer, which it returns as `got`. */
  reply(slip: boolean, rng: Rng): { text: string; got: string };
  /** What the verifier checks, in words. */
  check: string;
}

function listPhrase(parts: string[]): string {
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** A nonzero correction of size 1..limit that keeps `value + delta` non-negative. */
function wrongBy(value: number, limit: number, rng: Rng): number {
  const size = rng.between(1, limit);
  return value - size >= 0 && rng.chance(0.5) ? -size : size;
}

const ANIMALS: ReadonlyArray<readonly [string, string, number]> = [
  ['spider', 'spiders', 8], ['chicken', 'chickens', 2], ['cow', 'cows', 4], ['ant', 'ants', 6],
  ['crab', 'crabs', 10], ['starfish', 'starfish', 5], ['duck', 'ducks', 2], ['horse', 'horses', 4],
  ['beetle', 'beetles', 6], ['snake', 'snakes', 0], ['octopus', 'octopuses', 8], ['sheep', 'sheep', 4],
  ['flamingo', 'flamingos', 2], ['lobster', 'lobsters', 10], ['butterfly', 'butterflies', 6], ['cat', 'cats', 4],
];

function legCounting(rng: Rng): Problem {
  const herd = rng.shuffled(ANIMALS).slice(0, rng.between(2, 4)).map(([one, many, legs]) => {
    const count = rng.between(1, 6);
    return { name: count === 1 ? one : many, count, legs };
  });
  const total = herd.reduce((sum, a) => sum + a.count * a.legs, 0);
  return {
    input: `How many legs do ${listPhrase(herd.map((a) => `${a.count} ${a.name}`))} have in total?`,
    answer: String(total),
    check: 'exact match of the integer after "Answer:"',
    reply(slip, r) {
      // A slip miscounts the legs of one kind of animal, and the sum follows from it.
      const wrong = slip ? r.int(herd.length) : -1;
      const lines = herd.map((a, i) => {
        const legs = i === wrong ? a.legs + (a.legs < 2 || r.chance(0.5) ? 2 : -2) : a.legs;
        return { text: `${a.count} ${a.name} × ${legs} legs = ${a.count * legs}`, value: a.count * legs };
      });
      const sum = lines.reduce((s, l) => s + l.value, 0);
      const text = [...lines.map((l) => l.text), `${lines.map((l) => l.value).join(' + ')} = ${sum}`, `Answer: ${sum}`].join('\n');
      return { text, got: String(sum) };
    },
  };
}

interface WordProblem {
  question: string;
  steps: string[];
  /** The last computation, written without its result. */
  last: string;
  value: number;
}

const WORD_PROBLEMS: ReadonlyArray<(r: Rng) => WordProblem> = [
  (r) => {
    const [a, b, c, d] = [r.between(40, 90), r.between(10, 25), r.between(5, 15), r.between(2, 6)];
    const left = a - b - c;
    return {
      question: `A bakery bakes ${a} muffins each morning. It sells ${b} before noon and ${c} in the afternoon, and gives the rest to a shelter. How many muffins does the shelter receive over ${d} days?`,
      steps: [`Sold per day: ${b} + ${c} = ${b + c}.`, `Left per day: ${a} - ${b + c} = ${left}.`],
      last: `Over ${d} days: ${left} × ${d}`,
      value: left * d,
    };
  },
  (r) => {
    const [a, b] = [r.between(8, 30), r.between(5, 12)];
    const c = r.between(20, a * b - 10);
    return {
      question: `Maya saves $${a} every week. After ${b} weeks she buys a bicycle for $${c}. How many dollars does she have left?`,
      steps: [`Saved: ${a} × ${b} = ${a * b} dollars.`],
      last: `Left: ${a * b} - ${c}`,
      value: a * b - c,
    };
  },
  (r) => {
    const [a, b] = [r.between(4, 9), 10 * r.between(2, 6)];
    const c = r.between(10, Math.floor((a * b) / 2));
    const d = r.between(5, a * b - c - 1);
    return {
      question: `A train has ${a} cars with ${b} seats each. At the first station ${c} passengers board, and at the second station ${d} more board. How many seats are still empty?`,
      steps: [`Seats: ${a} × ${b} = ${a * b}.`, `Passengers: ${c} + ${d} = ${c + d}.`],
      last: `Empty seats: ${a * b} - ${c + d}`,
      value: a * b - c - d,
    };
  },
  (r) => {
    const [a, b, c, d] = [r.between(3, 8), r.between(4, 12), r.between(5, 15), r.pick([6, 8, 10, 12])];
    const total = a * b * c;
    return {
      question: `A farmer plants ${a} rows of tomatoes with ${b} plants in each row. Each plant gives ${c} tomatoes, and he packs them in boxes of ${d}. How many boxes can he fill completely?`,
      steps: [`Plants: ${a} × ${b} = ${a * b}.`, `Tomatoes: ${a * b} × ${c} = ${total}.`],
      last: `Full boxes: ${total} ÷ ${d}, rounded down`,
      value: Math.floor(total / d),
    };
  },
  (r) => {
    const [a, b, c] = [r.between(10, 40), r.between(20, 60), r.between(2, 5)];
    const week = 5 * a + 2 * b;
    return {
      question: `Liam reads ${a} pages on each weekday and ${b} pages on each day of the weekend. How many pages does he read in ${c} weeks?`,
      steps: [`Weekdays: 5 × ${a} = ${5 * a}.`, `Weekend: 2 × ${b} = ${2 * b}.`, `Per week: ${5 * a} + ${2 * b} = ${week}.`],
      last: `In ${c} weeks: ${week} × ${c}`,
      value: week * c,
    };
  },
];

/** A word problem answered step by step, ending `#### N` as GSM8K solutions do. */
function wordProblem(rng: Rng): Problem {
  const p = rng.pick(WORD_PROBLEMS)(rng);
  return {
    input: p.question,
    answer: String(p.value),
    check: 'compare the number after "####"',
    reply(slip, r) {
      // A slip is an arithmetic error in the last step.
      const got = slip ? p.value + wrongBy(p.value, 12, r) : p.value;
      return { text: [...p.steps, `${p.last} = ${got}.`, `#### ${got}`].join('\n'), got: String(got) };
    },
  };
}

/** A small graph built around a hidden proper 3-colouring, so a valid answer always exists. */
function graphColoring(rng: Rng): Problem {
  const n = rng.between(5, 8);
  const colours = 3;
  const hidden = Array.from({ length: n }, () => rng.int(colours));
  hidden[1] = (hidden[0] + 1) % colours;
  const edges: Array<[number, number]> = [[0, 1]];
  for (let u = 0; u < n; u++) {
    for (let v = u + 1; v < n; v++) {
      if ((u > 0 || v > 1) && hidden[u] !== hidden[v] && rng.chance(0.5)) edges.push([u, v]);
    }
  }
  const edgeText = edges.map(([u, v]) => `${u}-${v}`).join(', ');
  const conflicts = (c: number[]) => edges.filter(([u, v]) => c[u] === c[v]);
  return {
    input:
      `Colour the vertices 0-${n - 1} of this graph with at most ${colours} colours (0, 1, 2) so that no edge joins two vertices of the same colour.\n` +
      `Edges: ${edgeText}\nAnswer with a JSON object mapping each vertex to its colour.`,
    answer: '0 conflicting edges',
    check: `every edge must join different colours, at most ${colours} colours`,
    reply(slip, r) {
      // Any renaming of the hidden colours is valid; a slip gives one end of an edge its neighbour's colour.
      const rename = r.shuffled([0, 1, 2]);
      const c = hidden.map((h) => rename[h]);
      if (slip) {
        const [u, v] = r.pick(edges);
        c[u] = c[v];
      }
      const bad = conflicts(c);
      const got = bad.length === 0 ? '0 conflicting edges' : `${bad.length} conflicting edge${bad.length === 1 ? '' : 's'} (${bad.map(([u, v]) => `${u}-${v}`).join(', ')})`;
      return { text: JSON.stringify(Object.fromEntries(c.map((colour, v) => [String(v), colour]))), got };
    },
  };
}

/** Tasksets the simulator has no dedicated generator for get plain arithmetic. */
function arithmetic(rng: Rng): Problem {
  const [a, b, c] = [rng.between(12, 99), rng.between(3, 19), rng.between(10, 250)];
  const value = a * b + c;
  return {
    input: `What is ${a} × ${b} + ${c}?`,
    answer: String(value),
    check: 'exact match of the integer after "Answer:"',
    reply(slip, r) {
      const got = slip ? value + wrongBy(value, 20, r) : value;
      return { text: `${a} × ${b} = ${a * b}\n${a * b} + ${c} = ${got}\nAnswer: ${got}`, got: String(got) };
    },
  };
}

function problemFor(taskset: string, taskId: string): Problem {
  const rng = rngFor('task-text', taskset, taskId);
  const name = taskset.toLowerCase();
  if (name.includes('leg')) return legCounting(rng);
  if (name.includes('gsm8k')) return wordProblem(rng);
  if (name.includes('graph') && /colou?r/.test(name)) return graphColoring(rng);
  return arithmetic(rng);
}

/** Cuts a reply part way, at a word boundary, as a timeout or crash would leave it. */
function cutShort(text: string, rng: Rng): string {
  const at = text.lastIndexOf(' ', Math.floor(text.length * rng.uniform(0.3, 0.6)));
  return at > 0 ? text.slice(0, at) : text.slice(0, Math.max(1, Math.floor(text.length / 2)));
}

/** The input, reply and verifier text of one attempt; `rng` is the attempt's own stream. */
export function attemptTrace(taskset: string, taskId: string, outcome: Outcome, rng: Rng): AttemptTrace {
  const problem = problemFor(taskset, taskId);
  const { text, got } = problem.reply(outcome === 'failed', rng);
  if (outcome === 'error') {
    return { input: problem.input, output: cutShort(text, rng), verifier: 'not run: the attempt ended with an error before a final answer' };
  }
  const expected = outcome === 'failed' ? ` (expected ${problem.answer})` : '';
  return { input: problem.input, output: text, verifier: `${problem.check}: got ${got}${expected}, ${outcome}` };
}
