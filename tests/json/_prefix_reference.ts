// A reference for byte offsets, written independently of lib/json/_scan.ts.

// The reference: where does an ASCII text stop being a prefix of any JSON text? Returns the
// index, or -1 when the text is a prefix (complete or not). Written as recursive descent over
// characters, independently of lib/json/_scan.ts.
export function prefixBreak(text: string): number {
  let i = 0;
  const END = -2;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const at = (): string | undefined => text[i];
  function literal(word: string): number {
    for (const c of word) {
      if (i >= text.length) return END;
      if (text[i] !== c) return i;
      i++;
    }
    return -1;
  }
  function digits(atLeastOne: boolean): number {
    const start = i;
    while (i < text.length && text[i] >= "0" && text[i] <= "9") i++;
    if (atLeastOne && i === start) return i >= text.length ? END : i;
    return -1;
  }
  function number(): number {
    if (at() === "-") i++;
    if (i >= text.length) return END;
    if (at() === "0") i++;
    else if (at()! >= "1" && at()! <= "9") digits(true);
    else return i;
    if (at() === ".") {
      i++;
      const r = digits(true);
      if (r !== -1) return r;
    }
    if (at() === "e" || at() === "E") {
      i++;
      if (at() === "+" || at() === "-") i++;
      const r = digits(true);
      if (r !== -1) return r;
    }
    return -1;
  }
  function string(): number {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) return END;
      const c = text[i];
      if (c === '"') {
        i++;
        return -1;
      }
      if (c < " ") return i;
      if (c === "\\") {
        i++;
        if (i >= text.length) return END;
        if (text[i] === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= text.length) return END;
            if (!/[0-9a-fA-F]/.test(text[i])) return i;
          }
          i++;
        } else if ('"\\/bfnrt'.includes(text[i])) i++;
        else return i;
      } else i++;
    }
  }
  function value(): number {
    ws();
    if (i >= text.length) return END;
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (i >= text.length) return END;
      if (at() === "}") {
        i++;
        return -1;
      }
      for (;;) {
        ws();
        if (i >= text.length) return END;
        if (at() !== '"') return i;
        const k = string();
        if (k !== -1) return k;
        ws();
        if (i >= text.length) return END;
        if (at() !== ":") return i;
        i++;
        const v = value();
        if (v !== -1) return v;
        ws();
        if (i >= text.length) return END;
        if (at() === "}") {
          i++;
          return -1;
        }
        if (at() !== ",") return i;
        i++;
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (i >= text.length) return END;
      if (at() === "]") {
        i++;
        return -1;
      }
      for (;;) {
        const v = value();
        if (v !== -1) return v;
        ws();
        if (i >= text.length) return END;
        if (at() === "]") {
          i++;
          return -1;
        }
        if (at() !== ",") return i;
        i++;
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    return i;
  }
  const r = value();
  if (r === END) return -1;
  if (r !== -1) return r;
  ws();
  return i < text.length ? i : -1;
}
