// The TypeScript modules of lib/ and wsgi/, which the checks of this folder read.

/** Yields the path of every `.ts` file under `root`'s lib/ and wsgi/, relative to `root`. */
export async function* modules(root: string): AsyncGenerator<string> {
  for (const dir of ["lib", "wsgi"]) {
    try {
      await Deno.stat(`${root}/${dir}`);
    } catch {
      continue; // a test's tree may lack one
    }
    for await (const path of walk(`${root}/${dir}`)) yield path.slice(root.length + 1);
  }
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
