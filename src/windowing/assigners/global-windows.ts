// GlobalWindows: one window per key for all time; a custom trigger (count, delta, end of stream) decides firing.
import type { NamespaceSerializer } from '../../state/namespace.ts';
import { GlobalWindow, globalWindowSerializer } from '../global-window.ts';
import type { Trigger } from '../trigger.ts';
import { EndOfStreamTrigger } from '../triggers/end-of-stream-trigger.ts';
import { NeverTrigger } from '../triggers/never-trigger.ts';
import { WindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';

const GLOBAL: readonly GlobalWindow[] = Object.freeze([GlobalWindow.get()]);

/**
 * Assigns every element of a key to the single {@link GlobalWindow}, as Flink's `GlobalWindows`. With the
 * default {@link NeverTrigger} nothing ever fires, so give it a trigger (count windows are
 * `GlobalWindows` + `CountTrigger`), or use {@link createWithEndOfStreamTrigger} to fire once when a bounded
 * input ends (Flink 1.19+).
 *
 * GlobalWindows is not an event-time assigner: no element is ever late and no cleanup timer is set.
 *
 * @example
 * keyed.window(GlobalWindows.create()).trigger(PurgingTrigger.of(CountTrigger.of(100))).reduce(sum)
 * keyed.window(GlobalWindows.createWithEndOfStreamTrigger()).aggregate(totals) // one result per key at the end
 */
export class GlobalWindows extends WindowAssigner<unknown, GlobalWindow> {
  private constructor(private readonly defaultTrigger: Trigger<unknown, GlobalWindow>) {
    super();
  }

  /** Global windows whose default trigger never fires. */
  static create(): GlobalWindows {
    return new GlobalWindows(new NeverTrigger());
  }

  /** Global windows whose default trigger fires once, when the final watermark marks the end of the input. */
  static createWithEndOfStreamTrigger(): GlobalWindows {
    return new GlobalWindows(new EndOfStreamTrigger());
  }

  assignWindows(
    _element: unknown,
    _timestamp: number,
    _context: WindowAssignerContext,
  ): readonly GlobalWindow[] {
    return GLOBAL;
  }

  getDefaultTrigger(): Trigger<unknown, GlobalWindow> {
    return this.defaultTrigger;
  }

  getWindowSerializer(): NamespaceSerializer<GlobalWindow> {
    return globalWindowSerializer;
  }

  isEventTime(): boolean {
    return false;
  }

  override toString(): string {
    return 'GlobalWindows()';
  }
}
