/** One Lua script of the store: its source, and how named arguments become its KEYS and ARGV. */
export interface Script<Args, Reply> {
  lua: string;
  keys(args: Args): string[];
  argv(args: Args): (string | number)[];
  /** Phantom: the reply's type, for callers. */
  readonly reply?: Reply;
}

export const script = <Args, Reply>(definition: Script<Args, Reply>): Script<Args, Reply> => definition;
