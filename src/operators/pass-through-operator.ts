// PassThroughOperator: forwards records unchanged; the entry point the test harness pushes into.
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';

export class PassThroughOperator<T>
  extends AbstractStreamOperator<T>
  implements OneInputStreamOperator<T, T>
{
  processElement(value: T, timestamp: number): void {
    this.output.collect(value, timestamp);
  }
}
