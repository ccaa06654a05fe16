/**
 * The JSON length of a tool call's arguments object, stringified once per object: the gauge's
 * estimate (message-tokens.ts) and the context breakdown (breakdown/measure.ts) both count a call
 * as its name plus this, over the whole history, on every request. A call's arguments are not
 * changed once the call is in the history (a streamed call gets a new object per delta). No SDK
 * import here: the breakdown is loaded by the CLI too.
 */
const argumentChars = new WeakMap<object, number>();

/** `JSON.stringify(args).length`; throws where JSON.stringify throws or gives no text. */
export function argumentsJsonLength(args: object): number {
  let n = argumentChars.get(args);
  if (n === undefined) {
    n = JSON.stringify(args).length;
    argumentChars.set(args, n);
  }
  return n;
}
