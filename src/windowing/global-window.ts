// GlobalWindow: the single window of GlobalWindows, holding every element of a key until a trigger fires.
import type { NamespaceSerializer } from '../state/namespace.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import type { Window } from './window.ts';

/**
 * The one window of {@link GlobalWindows}, as Flink's `GlobalWindow`. It never ends: its max timestamp is the
 * end of time (`MAX_WATERMARK`, Flink's `Long.MAX_VALUE`), so results it emits carry that timestamp and the
 * window operator sets no cleanup timer for it.
 *
 * @example
 * GlobalWindow.get().maxTimestamp(); // Infinity
 */
export class GlobalWindow implements Window {
  private static readonly INSTANCE = new GlobalWindow();

  private constructor() {}

  static get(): GlobalWindow {
    return GlobalWindow.INSTANCE;
  }

  maxTimestamp(): number {
    return MAX_WATERMARK;
  }

  equals(other: unknown): boolean {
    return other instanceof GlobalWindow;
  }

  toString(): string {
    return 'GlobalWindow';
  }
}

/** There is one GlobalWindow, so its key is a constant and its bytes are empty. */
export const globalWindowSerializer: NamespaceSerializer<GlobalWindow> = {
  key: () => 0,
  serializer: {
    serialize: () => new Uint8Array(0),
    deserialize: () => GlobalWindow.get(),
  },
};
