// The CEP operator tests' pattern: `a followedBy b followedBy c within ms`, over events named a, b and c.
import { Pattern } from '../../src/cep/pattern/pattern.ts';

/** An event of the CEP operator tests: its id, its name (a, b, c or another) and its key. */
export interface NamedEvent<K> {
  readonly id: number;
  readonly name: string;
  readonly key: K;
}

/** `a followedBy b followedBy c within ms`: the longer `ms`, the longer partial matches live and the more keys hold one. */
export function abcWithin<E extends { readonly name: string }>(ms: number): Pattern<E> {
  return Pattern.begin<E>('a')
    .where((e) => e.name === 'a')
    .followedBy('b')
    .where((e) => e.name === 'b')
    .followedBy('c')
    .where((e) => e.name === 'c')
    .within(ms);
}
