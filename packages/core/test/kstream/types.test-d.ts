import { describe, expectTypeOf, it } from 'vitest';
import {
  JoinWindows,
  type KGroupedStream,
  type KGroupedTable,
  type KStream,
  type KTable,
  type SessionWindowedKStream,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  type TimeWindowedKStream,
} from '../../src/kstream/index.ts';
import type { FixedKeyProcessorContext, ProcessorContext } from '../../src/processor/processor.ts';
import type { FixedKeyRecord, Record } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { TestOutputTopic } from '../../src/testing/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import type { Windowed } from '../../src/windowed.ts';

interface Order {
  id: string;
  amount: number;
}

describe('DSL types flow through the chain', () => {
  const builder = new StreamsBuilder();

  it('mapValues changes the value type', () => {
    expectTypeOf(builder.stream<string, string>('in').mapValues((v) => v.length)).toEqualTypeOf<
      KStream<string, number>
    >();
  });

  it('serdes infer the key and value types', () => {
    const orders = builder.stream('orders', { keySerde: Serdes.String(), valueSerde: Serdes.Json<Order>() });
    expectTypeOf(orders).toEqualTypeOf<KStream<string, Order>>();
    expectTypeOf(orders.map((k, v) => ({ key: v.amount, value: k }))).toEqualTypeOf<
      KStream<number, string>
    >();
    expectTypeOf(orders.selectKey((_k, v) => v.id.length)).toEqualTypeOf<KStream<number, Order>>();
    expectTypeOf(orders.flatMapValues((v) => [v.amount, v.amount])).toEqualTypeOf<KStream<string, number>>();
    expectTypeOf(orders.flatMap((k) => [{ key: k.length, value: true }])).toEqualTypeOf<
      KStream<number, boolean>
    >();
    expectTypeOf(orders.filter((_k, v) => v.amount > 0)).toEqualTypeOf<KStream<string, Order>>();
    expectTypeOf(
      orders
        .split()
        .branch(() => true)
        .noDefaultBranch(),
    ).toEqualTypeOf<Map<string, KStream<string, Order>>>();
  });

  it('aggregations produce typed tables; count is a number', () => {
    const grouped = builder
      .stream('x', { keySerde: Serdes.String(), valueSerde: Serdes.Json<Order>() })
      .groupBy((_k, v) => v.amount);
    expectTypeOf(grouped).toEqualTypeOf<KGroupedStream<number, Order>>();
    expectTypeOf(grouped.count()).toEqualTypeOf<KTable<number, number>>();
    expectTypeOf(grouped.reduce((a, b) => (a.amount > b.amount ? a : b))).toEqualTypeOf<
      KTable<number, Order>
    >();
    expectTypeOf(
      grouped.aggregate(
        () => [] as string[],
        (_k, v, ids) => [...ids, v.id],
      ),
    ).toEqualTypeOf<KTable<number, string[]>>();
    const table = builder.table('t', { keySerde: Serdes.String(), valueSerde: Serdes.Int32() });
    expectTypeOf(table.mapValues((v) => v > 0)).toEqualTypeOf<KTable<string, boolean>>();
    expectTypeOf(table.groupBy((k, v) => ({ key: v, value: k }))).toEqualTypeOf<
      KGroupedTable<number, string>
    >();
    expectTypeOf(table.toStream()).toEqualTypeOf<KStream<string, number>>();
  });

  it('process() output types come from the processor', () => {
    const s = builder.stream<string, number>('p');
    class Swap {
      private ctx?: ProcessorContext<number, string>;
      init(ctx: ProcessorContext<number, string>) {
        this.ctx = ctx;
      }
      process(record: Record<string, number>) {
        this.ctx?.forward(record.withKey(record.value).withValue(record.key));
      }
    }
    const out = s.process(() => new Swap());
    expectTypeOf(out).toEqualTypeOf<KStream<number, string>>();
    const values = s.processValues(() => ({
      init(_ctx: FixedKeyProcessorContext<string, boolean>) {},
      process(_record: FixedKeyRecord<string, number>) {},
    }));
    expectTypeOf(values).toEqualTypeOf<KStream<string, boolean>>();
  });

  it('rejects serdes of the wrong type at compile time', () => {
    // @ts-expect-error: a number serde for string values
    builder.stream<string, string>('bad-1', { valueSerde: Serdes.Int32() });
    const counts = builder.stream<string, string>('bad-2').groupByKey().count();
    // @ts-expect-error: count values are numbers, not strings
    counts.toStream().to('out', { valueSerde: Serdes.String() });
    // @ts-expect-error: count() is materialized with a number serde
    builder.stream<string, string>('bad-3').groupByKey().count({ valueSerde: Serdes.Int64() });
    // @ts-expect-error: the grouping key is a number
    builder.stream<string, string>('bad-4').groupBy((_k, v) => v.length, { keySerde: Serdes.String() });
    expectTypeOf(counts).toEqualTypeOf<KTable<string, number>>();
  });

  it('test driver topics are typed by their serdes', () => {
    const b = new StreamsBuilder();
    b.stream('in', { keySerde: Serdes.String(), valueSerde: Serdes.String() }).to('out');
    const driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic('in', Serdes.String(), Serdes.String());
    // @ts-expect-error: the input topic takes strings
    void input.pipeInput('k', 5);
    expectTypeOf(driver.createOutputTopic('out', Serdes.String(), Serdes.Long())).toEqualTypeOf<
      TestOutputTopic<string, number>
    >();
    expectTypeOf(
      driver.createOutputTopic('out', Serdes.String(), Serdes.Long()).readKeyValuesToMap(),
    ).toEqualTypeOf<Map<string, number | null>>();
  });
});

describe('windowedBy gives the windowed stream of its windows', () => {
  const grouped = new StreamsBuilder().stream<string, string>('in').groupByKey();

  it('sliding windows give a TimeWindowedKStream, sessions a SessionWindowedKStream', () => {
    const sliding = grouped.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(10));
    expectTypeOf(sliding).toEqualTypeOf<TimeWindowedKStream<string, string>>();
    const sessions = grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(10));
    expectTypeOf(sessions).toEqualTypeOf<SessionWindowedKStream<string, string>>();
    expectTypeOf(sessions.count()).toEqualTypeOf<KTable<Windowed<string>, number>>();
    expectTypeOf(
      sessions.aggregate(
        () => 0,
        (_k, v, a) => a + v.length,
        (_k, a, b) => a + b,
      ),
    ).toEqualTypeOf<KTable<Windowed<string>, number>>();
  });
});

describe('stream-stream joins infer both value types and the result', () => {
  const b = new StreamsBuilder();
  const orders = b.stream('orders', { keySerde: Serdes.String(), valueSerde: Serdes.Json<Order>() });
  const payments = b.stream('payments', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  const windows = JoinWindows.ofTimeDifferenceWithNoGrace(10);

  it('join: both values present; leftJoin: the other may be null; outerJoin: either', () => {
    orders.join(
      payments,
      (order, paid) => {
        expectTypeOf(order).toEqualTypeOf<Order>();
        expectTypeOf(paid).toEqualTypeOf<number>();
        return 0;
      },
      windows,
    );
    expectTypeOf(orders.join(payments, (o, p) => o.amount === p, windows)).toEqualTypeOf<
      KStream<string, boolean>
    >();
    orders.leftJoin(
      payments,
      (order, paid) => {
        expectTypeOf(order).toEqualTypeOf<Order>();
        expectTypeOf(paid).toEqualTypeOf<number | null>();
      },
      windows,
    );
    orders.outerJoin(
      payments,
      (order, paid) => {
        expectTypeOf(order).toEqualTypeOf<Order | null>();
        expectTypeOf(paid).toEqualTypeOf<number | null>();
      },
      windows,
    );
    expectTypeOf(
      orders.leftJoin(
        payments,
        (key: string, order: Order, paid: number | null) => `${key}${order.id}${paid}`,
        windows,
        {
          name: 'orders-payments',
        },
      ),
    ).toEqualTypeOf<KStream<string, string>>();
  });
});
