// Port of bench/workloads/generator.ts: event i as a pure function of (seed, i), as Flink generator functions.
package dev.weir.bench;

import org.apache.flink.connector.datagen.source.GeneratorFunction;

public final class Generators {
  private Generators() {}

  static long eventTime(int seed, int index, int salt, int eventsPerSecond, int bound) {
    return Params.BASE_TIMESTAMP
        + ((long) index * 1000L) / eventsPerSecond
        + Hashing.below(Hashing.draw(seed, index, salt), bound);
  }

  /** Generic events (workloads 1, 2, 3, 6, 7). */
  public static final class EventGenerator implements GeneratorFunction<Long, Event> {
    private static final long serialVersionUID = 1L;
    private final Params p;

    public EventGenerator(Params p) {
      this.p = p;
    }

    @Override
    public Event map(Long boxed) {
      int i = (int) (long) boxed;
      MemoryProbe.maybeHit(i);
      Event e = new Event();
      e.id = i;
      e.key = Hashing.below(Hashing.draw(p.seed, i, 1), p.keys);
      e.value = Hashing.below(Hashing.draw(p.seed, i, 2), 1000);
      e.ts = eventTime(p.seed, i, 3, p.eventsPerSecond, p.outOfOrdernessMs);
      return e;
    }
  }

  /** Nexmark-like bids (workloads 4, 5). */
  public static final class BidGenerator implements GeneratorFunction<Long, Bid> {
    private static final long serialVersionUID = 1L;
    private final Params p;

    public BidGenerator(Params p) {
      this.p = p;
    }

    @Override
    public Bid map(Long boxed) {
      int i = (int) (long) boxed;
      MemoryProbe.maybeHit(i);
      int seed = p.seed;
      Bid b = new Bid();
      b.id = i;
      b.auction = Hashing.below(Hashing.draw(seed, i, 11), 100) < p.hotAuctionPercent
          ? Hashing.below(Hashing.draw(seed, i, 12), p.hotAuctions)
          : Hashing.below(Hashing.draw(seed, i, 12), p.auctions);
      b.bidder = Hashing.below(Hashing.draw(seed, i, 13), 100) < p.hotBidderPercent
          ? Hashing.below(Hashing.draw(seed, i, 14), p.hotBidders)
          : Hashing.below(Hashing.draw(seed, i, 14), p.bidders);
      b.price = Hashing.below(Hashing.draw(seed, i, 15), 10_000) + 1;
      b.ts = eventTime(seed, i, 16, p.bidsPerSecond, p.bidOutOfOrdernessMs);
      return b;
    }
  }

  /** Nexmark events, persons : auctions : bids = 1 : 3 : 46 per 50 (workload q8). */
  public static final class NexmarkGenerator implements GeneratorFunction<Long, NexmarkEvent> {
    private static final long serialVersionUID = 1L;
    static final int CYCLE = 50;
    static final int PERSONS = 1;
    static final int AUCTIONS = 3;
    static final String[] FIRST_NAMES = {"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"};
    static final String[] LAST_NAMES = {"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"};
    private final Params p;

    public NexmarkGenerator(Params p) {
      this.p = p;
    }

    @Override
    public NexmarkEvent map(Long boxed) {
      int i = (int) (long) boxed;
      MemoryProbe.maybeHit(i);
      int seed = p.seed;
      int cycle = i / CYCLE;
      int offset = i - cycle * CYCLE;
      int lastPerson = cycle * PERSONS;
      NexmarkEvent e = new NexmarkEvent();
      if (offset < PERSONS) {
        e.kind = NexmarkEvent.PERSON;
        e.id = lastPerson;
        e.name = FIRST_NAMES[Hashing.below(Hashing.draw(seed, i, 21), FIRST_NAMES.length)] + " "
            + LAST_NAMES[Hashing.below(Hashing.draw(seed, i, 22), LAST_NAMES.length)];
      } else if (offset < PERSONS + AUCTIONS) {
        e.kind = NexmarkEvent.AUCTION;
        e.id = cycle * AUCTIONS + offset - PERSONS;
        e.name = "";
        e.seller = Math.max(0, lastPerson - Hashing.below(Hashing.draw(seed, i, 23), p.activePersons));
      } else {
        e.kind = NexmarkEvent.BID;
        e.id = i;
        e.name = "";
        int lastAuction = cycle * AUCTIONS + AUCTIONS - 1;
        e.auction = Math.max(0, lastAuction - Hashing.below(Hashing.draw(seed, i, 24), p.activeAuctions));
        e.bidder = Math.max(0, lastPerson - Hashing.below(Hashing.draw(seed, i, 25), p.activePersons));
        e.price = Hashing.below(Hashing.draw(seed, i, 26), 10_000) + 1;
      }
      e.ts = eventTime(seed, i, 27, p.nexmarkEventsPerSecond, p.nexmarkOutOfOrdernessMs);
      return e;
    }
  }
}
