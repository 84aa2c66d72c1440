// The forwarding that makes the adapter's light Request, Response and Headers stand in for
// Node's own: whatever a light object does not answer itself is asked of the real one, built
// on first need.

/**
 * Defines on `target` (a light class's prototype) each member of `proto` (the Web class's
 * prototype) that `target` lacks, and each of `slots` (undici's internal slots, own symbols of
 * its objects): a method calls the same method of `real(this)`, anything else is a getter that
 * reads it there. Then makes `target` inherit from `proto`, so that `instanceof` holds.
 */
export function delegate<T>(
  target: T,
  proto: object,
  real: (self: T) => object,
  slots: readonly symbol[] = [],
): void {
  const define = (key: string | symbol, method: boolean) =>
    Object.defineProperty(
      target,
      key,
      method
        ? {
          value: function (this: T, ...args: unknown[]) {
            return (real(this) as Record<PropertyKey, (...a: unknown[]) => unknown>)[key](...args);
          },
          writable: true,
          configurable: true,
        }
        : {
          get(this: T) {
            return (real(this) as Record<PropertyKey, unknown>)[key];
          },
          configurable: true,
        },
    );
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (!Object.hasOwn(target as object, name)) {
      define(name, typeof Object.getOwnPropertyDescriptor(proto, name)!.value === "function");
    }
  }
  for (const slot of slots) define(slot, false);
  Object.setPrototypeOf(target, proto);
}
