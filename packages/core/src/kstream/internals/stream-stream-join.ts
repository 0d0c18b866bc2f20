// Adds a stream-stream join to the graph with Kafka Streams 4.4's nodes, names and stores (see
// docs/architecture.md, "Stream-stream joins"): a re-keyed side goes through a repartition topic
// (`<name>-left` / `<name>-right`, else the stream's node name), the two inputs form a co-partition
// group, then KSTREAM-WINDOWED on each side, the two join processors and KSTREAM-MERGE.
import { TopologyError } from '../../errors.ts';
import type { AnySerde } from '../../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../../serdes/serde.ts';
import { joinWindowStoreBuilder } from '../../state/window-store-builder.ts';
import { JoinWindows } from '../join-windows.ts';
import { KStream } from '../kstream.ts';
import type { StreamJoined } from '../options.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';
import { JoinTimeTrackers } from './join-time-tracker.ts';
import { KStreamJoinWindowProcessor, KStreamKStreamJoinProcessor } from './kstream-kstream-join.ts';
import { PassThroughProcessor } from './kstream-processors.ts';
import { OuterJoinStoreBuilder } from './outer-join-store.ts';
import { toJoinerWithKey, type ValueJoiner, type ValueJoinerWithKey } from './value-joiner.ts';

type AnyJoiner = ValueJoinerWithKey<unknown, unknown, unknown, unknown>;

/** Which sides are outer: `join` neither, `leftJoin` the left, `outerJoin` both (Kafka Streams' KStreamImplJoin). */
export interface JoinSides {
  readonly leftOuter: boolean;
  readonly rightOuter: boolean;
}

function validate(
  self: KStream<unknown, unknown>,
  other: KStream<unknown, unknown>,
  joiner: unknown,
  windows: unknown,
  streamJoined: StreamJoined<unknown, unknown, unknown>,
): void {
  const what = `Cannot join stream ${self.nodeName} with stream ${other?.nodeName}`;
  if (other.builder !== self.builder)
    throw new TopologyError(`${what}: they come from different StreamsBuilders`);
  if (typeof joiner !== 'function') throw new TopologyError(`${what}: the joiner must be a function`);
  if (!(windows instanceof JoinWindows)) {
    throw new TopologyError(
      `${what}: pass JoinWindows (JoinWindows.ofTimeDifferenceWithNoGrace(ms) or ofTimeDifferenceAndGrace(ms, graceMs)) after the joiner`,
    );
  }
  for (const field of ['name', 'storeName'] as const) {
    const given = streamJoined[field];
    if (given !== undefined && (typeof given !== 'string' || given.length === 0)) {
      throw new TopologyError(`${what}: StreamJoined.${field} must be a non-empty string`);
    }
  }
}

/** Kafka Streams' NamedInternal.suffixWithOrElseGet: the user's name plus a suffix, else a generated name (the index is taken either way). */
function suffixedOrGenerated(
  builder: InternalStreamsBuilder,
  name: string | undefined,
  suffix: string,
  prefix: string,
): string {
  const generated = builder.newProcessorName(prefix);
  return name === undefined ? generated : `${name}${suffix}`;
}

export function streamStreamJoin<K, V, VO, VR>(
  self: KStream<K, V>,
  other: KStream<K, VO>,
  joiner: ValueJoiner<V, VO, VR> | ValueJoinerWithKey<K, V, VO, VR>,
  windows: JoinWindows,
  streamJoined: StreamJoined<K, V, VO>,
  { leftOuter, rightOuter }: JoinSides,
): KStream<K, VR> {
  const sj = (streamJoined ?? {}) as StreamJoined<unknown, unknown, unknown>;
  validate(self as KStream<unknown, unknown>, other as KStream<unknown, unknown>, joiner, windows, sj);
  const { builder } = self;
  const name = sj.name;
  const keySerde = (sj.keySerde ?? self.keySerde ?? other.keySerde) as Serde<unknown> | undefined;
  const valueSerde = (sj.valueSerde ?? self.valueSerde) as Serde<unknown> | undefined;
  const otherValueSerde = (sj.otherValueSerde ?? other.valueSerde) as Serde<unknown> | undefined;

  // KIP-962: a left or outer join keeps null keys in both sides' repartition topics.
  const dropNullKeys = !(leftOuter || rightOuter);
  const repartitioned = (stream: KStream<K, unknown>, side: string, values: Serde<unknown> | undefined) =>
    stream.repartitionRequired
      ? builder.repartitionForJoin(
          stream,
          name === undefined ? undefined : `${name}-${side}`,
          { keySerde: keySerde as AnySerde | undefined, valueSerde: values as AnySerde | undefined },
          !dropNullKeys,
        )
      : stream.nodeName;
  const thisParent = repartitioned(self, 'left', valueSerde);
  const otherParent = repartitioned(other, 'right', otherValueSerde);
  builder.topology.addCopartitionGroup([thisParent, otherParent]);

  const thisSuffix = rightOuter ? '-outer-this-join' : '-this-join';
  const otherSuffix = leftOuter ? '-outer-other-join' : '-other-join';
  const thisWindowedName = suffixedOrGenerated(builder, name, '-this-windowed', 'KSTREAM-WINDOWED-');
  const otherWindowedName = suffixedOrGenerated(builder, name, '-other-windowed', 'KSTREAM-WINDOWED-');
  const thisPrefix = rightOuter ? 'KSTREAM-OUTERTHIS-' : 'KSTREAM-JOINTHIS-';
  const thisGenerated = builder.newProcessorName(thisPrefix);
  const otherGenerated = builder.newProcessorName(leftOuter ? 'KSTREAM-OUTEROTHER-' : 'KSTREAM-JOINOTHER-');
  const joinThisName = name === undefined ? thisGenerated : `${name}${thisSuffix}`;
  const joinOtherName = name === undefined ? otherGenerated : `${name}${otherSuffix}`;
  const mergeName = suffixedOrGenerated(builder, name, '-merge', 'KSTREAM-MERGE-');

  const base = sj.storeName;
  const thisStoreName = `${base === undefined ? thisGenerated : base + thisSuffix}-store`;
  const otherStoreName = `${base === undefined ? otherGenerated : base + otherSuffix}-store`;
  let outerStoreName: string | undefined;
  if (leftOuter) {
    const shared =
      base === undefined
        ? `KSTREAM-OUTERSHARED-${thisGenerated.slice(thisPrefix.length)}`
        : `${base}${rightOuter ? '-outer-shared-join' : '-left-shared-join'}`;
    outerStoreName = `${shared}-store`;
  }

  const trackers = new JoinTimeTrackers();
  const joinerWithKey = toJoinerWithKey(joiner as AnyJoiner);
  const side = (left: boolean) =>
    new KStreamKStreamJoinProcessor({
      left,
      outer: left ? leftOuter : rightOuter,
      otherStoreName: left ? otherStoreName : thisStoreName,
      outerStoreName,
      windows,
      joiner: joinerWithKey,
      trackers,
    });
  builder.addProcessor(thisWindowedName, () => new KStreamJoinWindowProcessor(thisStoreName, trackers), [
    thisParent,
  ]);
  builder.addProcessor(otherWindowedName, () => new KStreamJoinWindowProcessor(otherStoreName, trackers), [
    otherParent,
  ]);
  builder.addProcessor(joinThisName, () => side(true), [thisWindowedName]);
  builder.addProcessor(joinOtherName, () => side(false), [otherWindowedName]);
  builder.addProcessor(mergeName, () => new PassThroughProcessor(), [joinThisName, joinOtherName]);

  const storeOptions = {
    retentionMs: windows.retentionMs,
    windowSizeMs: windows.sizeMs,
    retainDuplicates: true,
  };
  const logged = sj.loggingEnabled !== false;
  const stores = [
    [
      joinWindowStoreBuilder(thisStoreName, storeOptions, keySerde, valueSerde),
      [thisWindowedName, joinOtherName],
    ],
    [
      joinWindowStoreBuilder(otherStoreName, storeOptions, keySerde, otherValueSerde),
      [otherWindowedName, joinThisName],
    ],
  ] as const;
  for (const [store, processors] of stores) {
    builder.topology.addStateStore(logged ? store : store.withLoggingDisabled(), processors);
  }
  if (outerStoreName !== undefined) {
    const shared = new OuterJoinStoreBuilder(
      outerStoreName,
      keySerde,
      { left: valueSerde, right: otherValueSerde },
      logged,
    );
    builder.topology.addStateStore(shared, [joinThisName, joinOtherName]);
  }
  // Like Kafka Streams, no value serde for the result; a key serde only where both sides agree.
  const resultKeySerde = (sj.keySerde ?? (self.keySerde === other.keySerde ? self.keySerde : undefined)) as
    | Serde<K>
    | undefined;
  return new KStream<K, VR>(builder, mergeName, resultKeySerde, undefined, false);
}
