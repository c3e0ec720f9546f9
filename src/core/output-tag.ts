// OutputTag: the typed name of a side output.
import { ConfigurationError } from './errors.ts';

/**
 * Names a side output and fixes its element type. Records emitted with `ctx.output(tag, value)` go only to the
 * consumers of `stream.getSideOutput(tag)`; two tags are the same side output when their ids are equal.
 *
 * Unlike Flink, Weir routes a side-output record straight to the consumers of its tag instead of broadcasting
 * it to every output and filtering by tag there.
 *
 * @example
 * const lateTag = new OutputTag<Click>('late-clicks');
 * const late = windowed.getSideOutput(lateTag);
 */
export class OutputTag<T> {
  /** Type-only marker carrying the element type. */
  declare readonly __type?: T;

  /**
   * @param id unique name of the side output within the job
   * @param typeName optional name of the element type; two tags with one id and different type names in one job
   *   are rejected when the job is built
   */
  constructor(
    readonly id: string,
    readonly typeName?: string,
  ) {
    if (typeof id !== 'string' || id.length === 0)
      throw new ConfigurationError('An OutputTag needs a non-empty id');
  }

  toString(): string {
    return `OutputTag(${this.id}${this.typeName ? `: ${this.typeName}` : ''})`;
  }
}
