// Latency statistics that take constant memory however long the soak runs. Keeping one object
// per request made the client's own heap grow with the run (5,800 requests a second: 3.5
// million samples in 10 minutes), and the client's garbage collector, pausing longer as that
// heap grew, made open-loop latency rise and the backlog overflow as if the server had slowed.

// Buckets: 10 µs wide below 1 ms, then each 1 % wider than the one before, up to 60 s; a
// percentile is read as its bucket's upper bound, so it is at most 1 % (or 10 µs) high.
const LINEAR_MS = 1;
const LINEAR_STEP_MS = 0.01;
const LINEAR_BUCKETS = Math.round(LINEAR_MS / LINEAR_STEP_MS);
const GROWTH = 1.01;
const MAX_MS = 60_000;
const LOG_BUCKETS = Math.ceil(Math.log(MAX_MS / LINEAR_MS) / Math.log(GROWTH));

function bucketOf(ms: number): number {
  if (ms < LINEAR_MS) return Math.max(0, Math.floor(ms / LINEAR_STEP_MS));
  const i = LINEAR_BUCKETS + Math.ceil(Math.log(ms / LINEAR_MS) / Math.log(GROWTH));
  return Math.min(i, LINEAR_BUCKETS + LOG_BUCKETS);
}

function upperBound(bucket: number): number {
  if (bucket < LINEAR_BUCKETS) return (bucket + 1) * LINEAR_STEP_MS;
  if (bucket === LINEAR_BUCKETS + LOG_BUCKETS) return Infinity; // everything past MAX_MS
  return LINEAR_MS * GROWTH ** (bucket - LINEAR_BUCKETS);
}

/** A histogram as plain data, to send from one process to another: [bucket, count] pairs. */
export interface HistogramData {
  buckets: [number, number][];
  max: number;
}

/** A window as plain data. */
export interface WindowData {
  latency: HistogramData;
  errors: number;
}

/** Counts of latencies in fixed buckets, with the exact maximum. */
export class Histogram {
  #counts = new Uint32Array(LINEAR_BUCKETS + LOG_BUCKETS + 1);
  count = 0;
  max = 0;

  add(ms: number): void {
    this.#counts[bucketOf(ms)]++;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  /** The buckets that hold a count, as plain data. */
  data(): HistogramData {
    const buckets: [number, number][] = [];
    this.#counts.forEach((count, i) => {
      if (count > 0) buckets.push([i, count]);
    });
    return { buckets, max: this.max };
  }

  /** Adds the counts of another histogram, given as data (from another process). */
  merge(data: HistogramData): void {
    for (const [i, count] of data.buckets) {
      this.#counts[i] += count;
      this.count += count;
    }
    if (data.max > this.max) this.max = data.max;
  }

  /** The `q` quantile (0 < q ≤ 1) in ms; 0 when empty. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.min(this.count - 1, Math.floor(this.count * q)) + 1;
    let seen = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      seen += this.#counts[i];
      if (seen >= rank) return Math.min(upperBound(i), this.max);
    }
    return this.max;
  }
}

/** What one stretch of the load did: requests answered, errors, latencies. */
export class Window {
  readonly latency = new Histogram();
  errors = 0;

  /** Requests counted, answered or not. */
  get requests(): number {
    return this.latency.count + this.errors;
  }

  record(ms: number, ok: boolean): void {
    if (ok) this.latency.add(ms);
    else this.errors++;
  }

  data(): WindowData {
    return { latency: this.latency.data(), errors: this.errors };
  }

  merge(data: WindowData): void {
    this.latency.merge(data.latency);
    this.errors += data.errors;
  }
}

/** A run's windows as plain data. */
export interface PhasesData {
  total: WindowData;
  first: WindowData;
  last: WindowData;
}

/**
 * A run of `lengthMs` seen three ways, by when each request was due (ms into the run): the
 * whole run, its first `windowMs` and its last `windowMs`, whose p99s give the drift.
 */
export class Phases {
  readonly total = new Window();
  readonly first = new Window();
  readonly last = new Window();
  #windowMs: number;
  #lengthMs: number;

  constructor(windowMs: number, lengthMs: number) {
    this.#windowMs = windowMs;
    this.#lengthMs = lengthMs;
  }

  record(at: number, ms: number, ok: boolean): void {
    this.total.record(ms, ok);
    if (at < this.#windowMs) this.first.record(ms, ok);
    if (at >= this.#lengthMs - this.#windowMs) this.last.record(ms, ok);
  }

  data(): PhasesData {
    return { total: this.total.data(), first: this.first.data(), last: this.last.data() };
  }
}
