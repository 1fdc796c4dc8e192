import { commandWords } from '../command-words.js';

/** What a clipanion definition tells completion: its path, its short usage (arguments) and options (values named, as in `--help`). */
export interface DefinitionLike {
  path: string;
  usage: string;
  options: ReadonlyArray<{ definition: string }>;
}

export interface OptionShape {
  /** `-q`, `--jq`. */
  names: string[];
  /** What the value is (`model`, `starter|pro`, `json|@file|-`), or null for a switch. */
  value: string | null;
}

/** One command as completion sees it. */
export interface CommandShape {
  words: string[];
  /** The names of its positional arguments, in order (`app-uuid`, `screen`). */
  positionals: string[];
  options: OptionShape[];
}

/** `--starter <mini|web|messenger>`, `-q,--jq <expression>`, `--paginate`. */
function optionShape(definition: string): OptionShape {
  const [names = '', value] = definition.split(' ');
  return { names: names.split(','), value: value ? value.replace(/^<|>$/g, '') : null };
}

export function commandShapes(definitions: readonly DefinitionLike[]): CommandShape[] {
  return definitions
    .map((definition) => {
      const words = commandWords(definition.path);
      const positionals = definition.usage
        .trim()
        .split(' ')
        .slice(words.length + 1)
        .flatMap((token) => /^[<[]([a-z][\w-]*)(?:\.\.\.)?[>\]]$/.exec(token)?.[1] ?? []);
      return { words, positionals, options: definition.options.map((option) => optionShape(option.definition)) };
    })
    .filter((shape) => !shape.words[0]?.startsWith('_'));
}
