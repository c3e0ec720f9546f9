// The Kafka comparison's keyed step: per user, a running count and amount in ValueState, one output per order.
package dev.weir.bench;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

public final class KafkaRunningTotal extends KeyedProcessFunction<String, KafkaOrder, KafkaUserTotal> {
  private transient ValueState<Tuple2<Long, Long>> state;

  @Override
  public void open(OpenContext ctx) {
    state = getRuntimeContext().getState(
        new ValueStateDescriptor<>("count-and-total", Types.TUPLE(Types.LONG, Types.LONG)));
  }

  @Override
  public void processElement(KafkaOrder order, Context ctx, Collector<KafkaUserTotal> out) throws Exception {
    Tuple2<Long, Long> current = state.value();
    long count = current == null ? 1 : current.f0 + 1;
    long total = current == null ? order.amount : current.f1 + order.amount;
    state.update(Tuple2.of(count, total));
    out.collect(new KafkaUserTotal(order.id, order.user, count, total));
  }
}
