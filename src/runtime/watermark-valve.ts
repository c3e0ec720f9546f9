// WatermarkValve: combines the watermarks and idleness of a subtask's input channels, as Flink's StatusWatermarkValve.
import { MIN_WATERMARK } from '../core/time-domain.ts';

/**
 * One slot per input channel (an upstream subtask on one input edge). The combined watermark is the minimum over
 * active channels and only ever increases; idle channels are left out, and when every channel is idle the
 * subtask is idle. A channel that ended counts as having reached the final watermark.
 */
export class WatermarkValve {
  private readonly watermarks: Float64Array;
  private readonly idle: Uint8Array;
  private combined = MIN_WATERMARK;
  private allIdle = false;

  constructor(channels: number) {
    this.watermarks = new Float64Array(Math.max(channels, 1)).fill(MIN_WATERMARK);
    this.idle = new Uint8Array(Math.max(channels, 1));
  }

  get current(): number {
    return this.combined;
  }

  /** Records a channel's watermark; returns the new combined watermark if it advanced, else undefined. */
  inputWatermark(channel: number, watermark: number): number | undefined {
    if (watermark <= this.watermarks[channel]!) return undefined;
    this.watermarks[channel] = watermark;
    return this.recompute();
  }

  /**
   * Records a channel's idleness; returns [idle-status change or undefined, advanced watermark or undefined]. When
   * the last active channel goes idle, no channel will advance the watermark any more: if that channel held the
   * combined watermark, the highest watermark over all channels is emitted with the idle status (Flink's flush of
   * the max watermark once every input is idle).
   */
  inputStatus(channel: number, idle: boolean): [boolean | undefined, number | undefined] {
    this.idle[channel] = idle ? 1 : 0;
    const everyIdle = this.idle.every((i) => i === 1);
    const statusChange = everyIdle !== this.allIdle ? everyIdle : undefined;
    this.allIdle = everyIdle;
    if (everyIdle)
      return [statusChange, this.watermarks[channel] === this.combined ? this.flushMax() : undefined];
    // A channel going idle may have been the one holding the watermark back.
    return [statusChange, this.recompute()];
  }

  private flushMax(): number | undefined {
    const max = Math.max(this.combined, ...this.watermarks);
    if (max === this.combined) return undefined;
    this.combined = max;
    return max;
  }

  private recompute(): number | undefined {
    let min = Number.POSITIVE_INFINITY;
    let any = false;
    for (let i = 0; i < this.watermarks.length; i++) {
      if (this.idle[i] === 1) continue;
      any = true;
      min = Math.min(min, this.watermarks[i]!);
    }
    if (!any || min <= this.combined) return undefined;
    this.combined = min;
    return min;
  }
}
