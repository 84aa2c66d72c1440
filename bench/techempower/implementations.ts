// What the TechEmpower-style checker (check.ts) and timing script (run.ts) start: the four
// implementations, their databases (a seeded SQLite file per server, or one throwaway
// PostgreSQL cluster) and the Node build they need.
import postgres from "postgres";
import { seed } from "./db.mjs";

const here = (path: string) => new URL(path, import.meta.url).pathname;

/** The implementations, the anchors first: Hono on Deno, Fastify on Node, then Weft. */
export const IMPLEMENTATIONS = ["hono-deno", "fastify-node", "weft-node", "weft-deno"] as const;
export type Implementation = typeof IMPLEMENTATIONS[number];
export type Engine = "sqlite" | "postgres";

/** The command line that starts `name` on `port` against the database at `location`. */
export function serverCommand(
  name: string,
  engine: Engine,
  location: string,
  port: number,
): string[] {
  const [framework, runtime] = name.split("-");
  return runtime === "deno"
    ? [Deno.execPath(), "run", "-A", here("servers.ts"), framework, engine, location, String(port)]
    : ["node", here("node/servers.mjs"), framework, engine, location, String(port)];
}

/** Why `node:sqlite` cannot be used by Node here (Node < 22.5), or undefined when it can. */
export async function nodeSqliteMissing(): Promise<string | undefined> {
  const out = await new Deno.Command("node", {
    args: ["-e", "require('node:sqlite')"],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => undefined);
  if (out?.success) return undefined;
  const version = new TextDecoder().decode(
    (await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output()).stdout,
  ).trim();
  return `node:sqlite is missing from Node ${version} (it arrived in Node 22.5)`;
}

/** The implementations that can run against `engine` here, and why the others cannot. */
export async function available(
  names: readonly string[],
  engine: Engine,
): Promise<{ names: string[]; skipped: string[] }> {
  const missing = engine === "sqlite" ? await nodeSqliteMissing() : undefined;
  const skipped: string[] = [];
  const usable = names.filter((name) => {
    if (missing !== undefined && name.endsWith("-node")) {
      skipped.push(`${name} on SQLite: ${missing}`);
      return false;
    }
    return true;
  });
  return { names: usable, skipped };
}

/** A seeded SQLite database in a temporary directory, one file per server. */
export async function sqliteDatabase(): Promise<{ file(name: string): string; remove(): void }> {
  const dir = await Deno.makeTempDir({ prefix: "weft-tfb-sqlite-" });
  const master = `${dir}/master.db`;
  await seed("sqlite", master);
  return {
    file(name) {
      const copy = `${dir}/${name}.db`;
      Deno.copyFileSync(master, copy);
      return copy;
    },
    remove: () => Deno.removeSync(dir, { recursive: true }),
  };
}

/** The JavaScript of the compiled fortunes template, for the Node implementations. */
export async function buildNodeTemplate(): Promise<void> {
  const { transform } = await import("esbuild");
  const source = await Deno.readTextFile(here("templates/fortunes.ts"));
  const { code } = await transform(source, { loader: "ts", format: "esm" });
  await Deno.mkdir(here(".build"), { recursive: true });
  await Deno.writeTextFile(here(".build/fortunes.mjs"), code);
}

/** A running throwaway PostgreSQL cluster. */
export interface Postgres {
  url: string;
  stop(): Promise<void>;
}

async function run(cmd: string[], what: string): Promise<string> {
  const out = await new Deno.Command(cmd[0], {
    args: cmd.slice(1),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${what} failed (${cmd.join(" ")}):\n${text}`);
  return text;
}

async function postgresBin(): Promise<string> {
  const versions: string[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) versions.push(entry.name);
  } catch {
    // not installed
  }
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) {
    throw new Error("PostgreSQL is missing: install it with apt-get install postgresql");
  }
  return `/usr/lib/postgresql/${newest}/bin`;
}

/**
 * Creates a cluster in a temporary directory (initdb), starts it on a free loopback port, with
 * its socket in that directory, creates and seeds the hello_world database. As root, the
 * cluster runs as the `postgres` user (PostgreSQL refuses root). stop() ends it by the PID in
 * postmaster.pid (fast shutdown, then SIGKILL after 10 s) and removes the directory.
 */
export async function startPostgres(deadlineMs = 60_000): Promise<Postgres> {
  const bin = await postgresBin();
  const dir = await Deno.makeTempDir({ prefix: "weft-tfb-pg-" });
  const asUser = Deno.uid() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  if (Deno.uid() === 0) await run(["chown", "postgres:postgres", dir], "chown");
  const data = `${dir}/data`;
  await run(
    [
      ...asUser,
      `${bin}/initdb`,
      "-D",
      data,
      "-U",
      "bench",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ],
    "initdb",
  );
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const server = new Deno.Command(asUser[0] ?? `${bin}/postgres`, {
    args: [
      ...asUser.slice(1),
      ...(asUser.length ? [`${bin}/postgres`] : []),
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "synchronous_commit=off",
      "-c",
      "max_connections=100",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  server.stderr.cancel().catch(() => {});
  const pid = async () =>
    Number((await Deno.readTextFile(`${data}/postmaster.pid`)).split("\n")[0]);
  const stop = async () => {
    try {
      const postmaster = await pid();
      Deno.kill(postmaster, "SIGINT");
      const until = Date.now() + 10_000;
      while (Date.now() < until && await exists(`/proc/${postmaster}`)) await sleep(100);
      if (await exists(`/proc/${postmaster}`)) Deno.kill(postmaster, "SIGKILL");
    } catch {
      // never started, or already gone
    }
    await server.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    const until = Date.now() + deadlineMs;
    while (true) {
      const ready = await new Deno.Command(`${bin}/pg_isready`, {
        args: ["-h", "127.0.0.1", "-p", String(port), "-U", "bench"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (ready.success) break;
      if (Date.now() > until) throw new Error(`PostgreSQL did not start within ${deadlineMs} ms`);
      await sleep(200);
    }
    await run([
      `${bin}/createdb`,
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      "bench",
      "hello_world",
    ], "createdb");
    const url = `postgres://bench@127.0.0.1:${port}/hello_world`;
    await seed("postgres", url, postgres);
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
