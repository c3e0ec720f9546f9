// Workload 6: FlinkCEP per card: begin("probe") value < 10, followedBy("large") value >= 500,
// followedBy("drain") value >= 900, within 2 s, skip strategy noSkip (Pattern.begin's default), event time.
package dev.weir.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.EventComparator;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

public final class CepWorkload implements Workload {
  @Override
  public String id() {
    return "cep";
  }

  @Override
  public int stateKeys(Params p) {
    return p.keys;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    final int probeBelow = p.probeBelow;
    final int largeAtLeast = p.largeAtLeast;
    final int drainAtLeast = p.drainAtLeast;
    Pattern<Event, Event> pattern = Pattern.<Event>begin("probe")
        .where(SimpleCondition.of(e -> e.value < probeBelow))
        .followedBy("large")
        .where(SimpleCondition.of(e -> e.value >= largeAtLeast))
        .followedBy("drain")
        .where(SimpleCondition.of(e -> e.value >= drainAtLeast))
        .within(Duration.ofMillis(p.withinMs));
    Workload.collect(
        CEP.pattern(Workload.alignedEvents(env, p).keyBy(e -> e.key), pattern, new ById()).inEventTime().process(new ToMatch()),
        r -> Hashing.cepMatch(r.f0, r.f1, r.f2, r.f3));
  }

  /** Equal timestamps in id order: the order of one ordered stream, whichever source subtask an event came from. */
  static final class ById implements EventComparator<Event> {
    @Override
    public int compare(Event a, Event b) {
      return Long.compare(a.id, b.id);
    }
  }

  static final class ToMatch extends PatternProcessFunction<Event, Tuple4<Integer, Integer, Integer, Integer>> {
    @Override
    public void processMatch(Map<String, List<Event>> match, Context ctx, Collector<Tuple4<Integer, Integer, Integer, Integer>> out) {
      Event probe = match.get("probe").get(0);
      Event large = match.get("large").get(0);
      Event drain = match.get("drain").get(0);
      out.collect(Tuple4.of(probe.key, (int) probe.id, (int) large.id, (int) drain.id));
    }
  }
}
