// The types of db.mjs (plain JavaScript so that Node runs it as it is).

/** A row of the World table. */
export interface World {
  id: number;
  randomNumber: number;
}

/** A row of the Fortune table. */
export interface Fortune {
  id: number;
  message: string;
}

/** The queries every implementation runs. */
export interface Database {
  world(id: number): Promise<World>;
  worlds(ids: number[]): Promise<World[]>;
  fortunes(): Promise<readonly Fortune[]>;
  update(worlds: readonly World[]): Promise<void>;
  close(): Promise<void>;
}

/** The `postgres` driver's default export. */
// deno-lint-ignore no-explicit-any
export type PostgresDriver = (url: string, options?: any) => any;

export const FORTUNES: readonly Fortune[];
export const ADDED_FORTUNE: Fortune;
export const WORLD_ROWS: number;
export function randomId(): number;
export function queryCount(value: string | null | undefined): number;
export function withAddedFortune(rows: readonly Fortune[]): Fortune[];
export function openDatabase(
  kind: string,
  location: string,
  postgres?: PostgresDriver,
): Promise<Database>;
export function seed(kind: string, location: string, postgres?: PostgresDriver): Promise<void>;
