// Issue 29's way of reporting a benchmark (bench/transfer, bench/sync): each figure the median of N rounds in
// which the tools take turns going first, its goal and the bound the bench measured printed beside it, a verdict
// per row, and every round's raw numbers underneath, so the machine's noise shows.
//
// The verdict of a row:
//   PASS   the median figure meets the goal;
//   BOUND  it misses the goal, and so does the row's floor: the figure, measured in the same run and rounds, of
//          the cheapest way to do the same work on this machine (the bare copy loop, a bare server-side copy, a
//          list-only pass, rclone where it is cheaper, or a Node process holding only the worker's indispensable
//          packages for a worker's memory). The goal then sits below what the bench shows reachable, and the floor
//          becomes the goal: the figure must be within BOUND_TOLERANCE of it (the rounds' noise), not merely
//          somewhere above an unreachable goal;
//   FAIL   it misses the goal and the floor meets it (or the row has no floor: its goal is relative to the
//          floor itself, so the floor always meets it), or the goal is out of reach and the figure is further
//          than BOUND_TOLERANCE from the floor as well.

type Direction = 'at most' | 'at least';

interface Floor {
  /** The floor's median figure, in the unit of the row's figure. */
  figure: number;
  /** What it is, e.g. "the bare copy loop". */
  what: string;
}

export interface GoalRow {
  /** The case and what is measured, e.g. "(a) time". */
  name: string;
  /** The median figure compared with the goal: a ratio, or an absolute figure in `unit`. */
  figure: number;
  goal: { direction: Direction; value: number };
  /** The unit of figure, goal and floor, e.g. "× rclone's time" or "MB". */
  unit: string;
  /** The medians the figure is made of, e.g. "Cumulo 4.12 s, rclone 3.80 s". */
  detail: string;
  /** Absent where the goal is relative to the floor itself (e.g. a fraction of the bare loop's throughput). */
  floor?: Floor;
  /** One line per round with its raw numbers. */
  rounds: string[];
  /** Why the figure does not count (e.g. a destination differs from the source): the row FAILs whatever it is. */
  invalid?: string;
}

type Verdict = 'PASS' | 'FAIL' | 'BOUND';

const meets = (figure: number, goal: GoalRow['goal']) =>
  goal.direction === 'at most' ? figure <= goal.value : figure >= goal.value;

/** How far past its bound a figure may sit and still count as at the bound: the noise between rounds here. */
const BOUND_TOLERANCE = 1.1;

function verdictOf(row: GoalRow): Verdict {
  if (row.invalid) return 'FAIL';
  if (meets(row.figure, row.goal)) return 'PASS';
  if (row.floor && !meets(row.floor.figure, row.goal) && distance(row, row.floor) <= BOUND_TOLERANCE)
    return 'BOUND';
  return 'FAIL';
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const figureText = (value: number, unit: string) =>
  unit === 'MB' ? `${value.toFixed(1)} MB` : `${value.toFixed(2)} ${unit}`;

/** How many times the bound the figure is, the way the goal runs (above it for "at most", below for "at least"). */
function distance(row: GoalRow, floor: Floor): number {
  return row.goal.direction === 'at most' ? row.figure / floor.figure : floor.figure / row.figure;
}

/** "1.08 × rclone's time (goal ≤ 1.0; bound 0.92: the bare copy loop) BOUND", and why, for one row. */
function rowLines(row: GoalRow): string[] {
  const verdict = verdictOf(row);
  const sign = row.goal.direction === 'at most' ? '≤' : '≥';
  const bound = row.floor
    ? `; bound ${figureText(row.floor.figure, row.unit)}: ${row.floor.what}`
    : '; no floor below the goal: the goal is relative to the floor itself';
  const lines = [
    `${row.name}: ${figureText(row.figure, row.unit)} (goal ${sign} ${figureText(row.goal.value, row.unit)}${bound}) ${verdict}${verdict === 'BOUND' && row.floor ? ` (the figure is ${distance(row, row.floor).toFixed(2)} × its bound)` : ''}`,
    `    medians: ${row.detail}`,
  ];
  if (row.invalid) lines.push(`    FAIL whatever the figure: ${row.invalid}`);
  if (verdict === 'FAIL' && row.floor && !row.invalid && !meets(row.floor.figure, row.goal)) {
    lines.push(
      `    FAIL: the goal sits below the floor measured in these rounds ` +
        `(${figureText(row.floor.figure, row.unit)}), and the figure is ${distance(row, row.floor).toFixed(2)} × that ` +
        `bound, more than the ${BOUND_TOLERANCE} the rounds' noise allows`,
    );
  }
  if (verdict === 'BOUND' && row.floor) {
    const gap = row.figure - row.floor.figure;
    lines.push(
      `    BOUND: the goal is missed, and the floor measured in these rounds misses it too ` +
        `(${figureText(row.floor.figure, row.unit)}, not ${sign} ${figureText(row.goal.value, row.unit)}): the goal ` +
        `sits below the bound, which is printed instead; the figure is ${figureText(Math.abs(gap), row.unit)} ` +
        `${gap >= 0 ? 'above' : 'below'} it`,
    );
  }
  for (const round of row.rounds) lines.push(`    ${round}`);
  return lines;
}

/**
 * The whole table: each row with its bound, verdict and raw rounds, then the rule the verdicts follow. True when no
 * row FAILs.
 */
export function printTable(title: string, rows: GoalRow[]): boolean {
  console.log(`\n${title}`);
  for (const row of rows) for (const line of rowLines(row)) console.log(`  ${line}`);
  console.log(
    '  verdicts: PASS = the median meets the goal; BOUND = it misses, and so does the floor measured in the same ' +
      `rounds (the cheapest way to do the same work here), printed as the bound, and the figure is within ` +
      `${BOUND_TOLERANCE} × that bound; FAIL = it misses and the floor meets it, or the goal is relative to the ` +
      "floor itself, or the figure is further than that from an out-of-reach goal's bound. The floors of times and CPU are the cheapest " +
      'clients measured here (bare loops at the concurrency Cumulo copies with, or rclone where it is cheaper). ' +
      "The floors of memory are Node processes before the work (the worker's packages alone; the planner before it " +
      'plans): bounds on any Node process doing it, not on rclone',
  );
  console.log(
    `  verdict counts: ${(['PASS', 'BOUND', 'FAIL'] as const)
      .map((verdict) => `${verdict} ${rows.filter((row) => verdictOf(row) === verdict).length}`)
      .join(', ')}`,
  );
  return rows.every((row) => verdictOf(row) !== 'FAIL');
}

/** The tools' order in round `round` (0-based): Cumulo first in rounds 1, 3, …, the peer first in rounds 2, 4, …. */
export const turnOrder = <T>(round: number, cumulo: T, peer: T): [T, T] =>
  round % 2 === 0 ? [cumulo, peer] : [peer, cumulo];
