// DataStream.returns: declares the record type of the operator that produced a stream, and only of an operator.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import { RecordType, Types } from '../core/record-type.ts';
import { StreamExecutionEnvironment } from './stream-execution-environment.ts';

const Point = Types.record({ x: 'number', label: 'string' });

describe('DataStream.returns', () => {
  it("sets the type on the operator's transformation", () => {
    const env = StreamExecutionEnvironment.create();
    const points = env
      .fromElements({ x: 1, label: 'a' })
      .map((p) => p, 'copy')
      .returns(Point);
    assert.equal(points.transformation.outputType, Point);
    assert.equal(points.transformation.name, 'copy');
  });

  it('refuses a stream made by a partitioning, whose records no operator of its own emits', () => {
    const env = StreamExecutionEnvironment.create();
    const keyed = env.fromElements({ x: 1, label: 'a' }).keyBy((p) => p.label);
    assert.throws(
      () => keyed.returns(Point),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        error.message ===
          "returns() declares the records of an operator, but this stream is made by 'Hash' (a partition): call it on the operator's stream before keyBy, a partitioning or union",
    );
  });

  it('refuses what Types.record did not make', () => {
    const env = StreamExecutionEnvironment.create();
    const stream = env.fromElements({ x: 1, label: 'a' }).map((p) => p, 'copy');
    assert.throws(
      () => stream.returns({ fields: [] } as unknown as RecordType<{ x: number; label: string }>),
      /Operator 'copy': returns\(\) needs a type made by Types.record\(...\)/,
    );
  });
});
