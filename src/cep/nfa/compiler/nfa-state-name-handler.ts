// NFAStateNameHandler: unique internal names for NFA states and the check that stage names are unique.
import { MalformedPatternError } from '../../pattern/malformed-pattern-error.ts';

const STATE_NAME_DELIM = ':';

/**
 * Gives every NFA state a unique name: the stage name, then `name:0`, `name:1`, ... for the further states a
 * stage compiles to (times, ignore and stop states). The shared buffer files events under the stage name, which
 * is the internal name cut at the first ':' (Flink's `NFAStateNameHandler`).
 */
export class NFAStateNameHandler {
  private readonly usedNames = new Set<string>();

  static getOriginalNameFromInternal(internalName: string): string {
    const i = internalName.indexOf(STATE_NAME_DELIM);
    return i < 0 ? internalName : internalName.slice(0, i);
  }

  static isCopyName(internalName: string): boolean {
    return internalName.includes(STATE_NAME_DELIM);
  }

  checkNameUniqueness(name: string): void {
    if (this.usedNames.has(name))
      throw new MalformedPatternError(`Duplicate pattern name: ${name}. Names must be unique.`);
    this.usedNames.add(name);
  }

  clear(): void {
    this.usedNames.clear();
  }

  getUniqueInternalName(baseName: string): string {
    let counter = 0;
    let candidate = baseName;
    while (this.usedNames.has(candidate)) candidate = `${baseName}${STATE_NAME_DELIM}${counter++}`;
    this.usedNames.add(candidate);
    return candidate;
  }
}
