// Workload q8 (Nexmark q8 "new users who opened auctions"): Nexmark events split into persons and auctions
// (filters), a 10 s tumbling window join of persons (by id) with auctions (by seller) -> (person id, name, window
// start), one record per person and auction of theirs in the same window.
package dev.weir.bench;

import java.time.Duration;
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

public final class Q8Workload implements Workload {
  @Override
  public String id() {
    return "q8";
  }

  @Override
  public int stateKeys(Params p) {
    // The persons of one window: the join's keys.
    return (int) ((long) p.nexmarkEventsPerSecond * p.nexmarkWindowMs / 1000 / Generators.NexmarkGenerator.CYCLE);
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    DataStream<NexmarkEvent> events = Workload.nexmark(env, p);
    DataStream<NexmarkEvent> persons = events.filter(e -> e.kind == NexmarkEvent.PERSON).name("persons");
    DataStream<NexmarkEvent> auctions = events.filter(e -> e.kind == NexmarkEvent.AUCTION).name("auctions");
    long size = p.nexmarkWindowMs;
    Workload.collect(
        persons
            .join(auctions)
            .where(person -> person.id, Types.INT)
            .equalTo(auction -> auction.seller, Types.INT)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(size)))
            .apply(new NewPerson(size), Types.TUPLE(Types.INT, Types.STRING, Types.LONG)),
        r -> Hashing.newPerson(r.f0, r.f1, r.f2));
  }

  static final class NewPerson implements JoinFunction<NexmarkEvent, NexmarkEvent, Tuple3<Integer, String, Long>> {
    private final long size;

    NewPerson(long size) {
      this.size = size;
    }

    @Override
    public Tuple3<Integer, String, Long> join(NexmarkEvent person, NexmarkEvent auction) {
      return Tuple3.of(person.id, person.name, person.ts - person.ts % size);
    }
  }
}
