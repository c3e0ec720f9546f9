// The fraud-detection job: a small card transaction followed by a large one within a minute raises an alert.
import type { DataStream } from '../../src/api/data-stream.ts';
import { OutputTag } from '../../src/core/output-tag.ts';
import {
  AfterMatchSkipStrategy,
  CEP,
  Pattern,
  type PatternMatch,
  type PatternProcessFunction,
  type TimedOutPartialMatchHandler,
} from '../../src/index.ts';
import { Time } from '../../src/time/time.ts';

/** A card transaction; `ts` is its event time in milliseconds. */
export interface Transaction {
  readonly card: string;
  readonly amount: number;
  readonly ts: number;
}

export interface Alert {
  readonly card: string;
  readonly small: number;
  readonly large: number;
  readonly at: number;
}

/** Small transactions not followed by a large one within the minute (the "probe" that came to nothing). */
export const timedOutTag = new OutputTag<{ card: string; small: number; expiredAt: number }>(
  'probe-timeouts',
);
/** Transactions that arrived behind the watermark. */
export const lateTag = new OutputTag<Transaction>('late-transactions');

/**
 * The pattern: a transaction under 1.00, then (relaxed: other transactions may come in between) one over 500.00,
 * both within one minute. After a match, skip past it so one probe raises one alert.
 */
export function fraudPattern() {
  return Pattern.begin<Transaction, 'small'>('small', AfterMatchSkipStrategy.skipPastLastEvent())
    .where((t) => t.amount < 1)
    .followedBy('large')
    .where((t) => t.amount > 500)
    .within(Time.minutes(1));
}

type FraudMatch = PatternMatch<ReturnType<typeof fraudPattern>>;

class FraudAlerts
  implements
    PatternProcessFunction<Transaction, Alert, FraudMatch>,
    TimedOutPartialMatchHandler<Transaction, FraudMatch>
{
  processMatch(match: FraudMatch, ctx: { timestamp(): number }, out: { collect(a: Alert): void }): void {
    const small = match.small[0]!;
    out.collect({
      card: small.card,
      small: small.amount,
      large: match.large[0]!.amount,
      at: ctx.timestamp(),
    });
  }

  processTimedOutMatch(
    match: Partial<FraudMatch>,
    ctx: { timestamp(): number; output: <X>(tag: OutputTag<X>, v: X) => void },
  ): void {
    const small = match.small![0]!;
    ctx.output(timedOutTag, { card: small.card, small: small.amount, expiredAt: ctx.timestamp() });
  }
}

/** Applies the pattern per card; alerts on the main output, timeouts and late transactions on side outputs. */
export function detectFraud(transactions: DataStream<Transaction>) {
  const alerts = CEP.pattern(
    transactions.keyBy((t) => t.card),
    fraudPattern(),
  )
    .sideOutputLateData(lateTag)
    .process(new FraudAlerts(), 'Fraud detection');
  return { alerts, timedOut: alerts.getSideOutput(timedOutTag), late: alerts.getSideOutput(lateTag) };
}
