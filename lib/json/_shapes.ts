// Object checks and projections, from source copies that each serve one object schema. V8
// keeps type feedback per function literal, not per closure: closures of one literal share
// it, so in code shared by every object schema a load like `v[key]` sees many names and maps
// and takes the slow megamorphic path. Each copy below
// is its own literal, so its loads, calls and stores see one name and one callee each and are
// optimized as if written for its schema, with no eval. A copy handles six members; longer
// shapes chain copies through `next`, shorter ones repeat a member in the free slots. Copies
// go to the schemas that json.decode and json.encode use often, while they last; the others
// take the generic path of _check.ts. The copies are identical but for their name (edit
// shape0 and repeat it; tests/json/shapes_test.ts checks it). Projections load, then check,
// then allocate and store, a sequence V8 compiles to one allocation with the members in place.
// A copy's members sit at a depth known when the schema's tree is built (see pairOf in
// _check.ts), which the copy passes them as a constant: TurboFan folds the depth arithmetic of
// the arrays and records it inlines, and a copy has no depth test (an object beyond the limit
// takes the generic path). Checks are kept small because TurboFan stops inlining callees into a
// function once their bytecode adds up to 920 bytes: the smaller they are, the more of a
// schema's tree compiles into its root.

// Exported bindings are read through a cell on every use; these module constants are folded
// into the compiled code (comparing with an exported symbol is several times slower).
const MAX = 512;
const fail: unique symbol = /* @__PURE__ */ Symbol("fail");

/** The deepest nesting of arrays and objects that decoding and validation accept. */
export const MAX_DEPTH: typeof MAX = MAX;

/** What a projection returns for a value that does not match its schema. */
export const FAIL: typeof fail = fail;

/** A check: whether `value`, nested at `depth` (the root is 1), matches. */
export type Check = (value: unknown, depth: number) => boolean;

/**
 * A projection: the value to serialize (the schema's members only), or FAIL. Object
 * projections fill `out` when a previous copy of the same shape created it.
 */
export type Project = (value: unknown, out?: Record<string, unknown>) => unknown;

/** The check and projection of a schema. */
export type Pair = readonly [Check, Project];

/** The number of members one copy handles. */
export const SLOTS = 6;

/** Whether `v` is an object JSON would write with braces. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

type Keys = readonly string[];
type Checks = readonly Check[];
type Projects = readonly Project[];
type Copy = (
  k: Keys,
  c: Checks,
  q: Checks,
  p: Projects,
  next: Pair,
  depth: number,
) => Pair;

function shape0(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape1(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape2(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape3(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape4(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape5(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape6(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape7(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape8(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape9(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape10(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

function shape11(k: Keys, c: Checks, q: Checks, p: Projects, next: Pair, depth: number): Pair {
  const [k0, k1, k2, k3, k4, k5] = k,
    [c0, c1, c2, c3, c4, c5] = c,
    [q0, q1, q2, q3, q4, q5] = q,
    [p0, p1, p2, p3, p4, p5] = p,
    [cn, pn] = next,
    e = depth;
  const Out = function () {} as unknown as new () => Record<string, unknown>;
  Out.prototype = Object.prototype; // plain objects, sized by the engine for this shape
  return [
    (v) =>
      isObject(v) && c0(v[k0], e) && c1(v[k1], e) && c2(v[k2], e) && c3(v[k3], e) &&
      c4(v[k4], e) && c5(v[k5], e) && cn(v, e),
    (v, out) => {
      if (!isObject(v)) return fail;
      const x0 = v[k0], x1 = v[k1], x2 = v[k2], x3 = v[k3], x4 = v[k4], x5 = v[k5];
      if (!(q0(x0, 1) && q1(x1, 1) && q2(x2, 1) && q3(x3, 1) && q4(x4, 1) && q5(x5, 1))) {
        return fail;
      }
      const y0 = p0(x0), y1 = p1(x1), y2 = p2(x2), y3 = p3(x3), y4 = p4(x4), y5 = p5(x5);
      if (y0 === fail || y1 === fail || y2 === fail || y3 === fail || y4 === fail || y5 === fail) {
        return fail;
      }
      out ??= new Out();
      out[k0] = y0, out[k1] = y1, out[k2] = y2, out[k3] = y3, out[k4] = y4, out[k5] = y5;
      return pn(v, out);
    },
  ];
}

const COPIES: readonly Copy[] = [
  shape0,
  shape1,
  shape2,
  shape3,
  shape4,
  shape5,
  shape6,
  shape7,
  shape8,
  shape9,
  shape10,
  shape11,
];
let used = 0;

/** Whether a copy is left for a shape of `n` members (chained by SLOTS). */
export function copiesLeft(n: number): boolean {
  return used + Math.ceil(n / SLOTS) <= COPIES.length;
}

/**
 * The check and projection of SLOTS object members, continued by `next`, from a free copy
 * (`copiesLeft` tells whether there is one), which no other schema will use. Member `i` is
 * named `k[i]`, checked by `c[i]`, and projected by `p[i]` after passing `q[i]` (the check of
 * members whose projection is the identity, else `pass`); its projection is stored into
 * `out` (a new object unless given). The members sit at level `depth`, which `c[i]` is given.
 */
export function shape(...args: Parameters<Copy>): Pair {
  return COPIES[used++](...args);
}

/** Frees every copy, for tests that need more than there are (sharing is only slower). */
export function freeCopies(): void {
  used = 0;
}
