// Kafka Streams' Position and PositionBound (KIP-796): how far a store has got, as the offset of
// the last input record written into it per topic and partition, and how far a query needs it to
// have got. A caller keeps the position of a write it made (the offset its producer got back) and
// asks for results at least that fresh, on whichever instance answers.
import { StreamsError } from '../errors.ts';

/** A Position as JSON: `{ topic: { partition: offset } }` (partitions as object keys). */
export type PositionJson = Record<string, Record<string, number>>;

export class Position {
  private readonly offsets = new Map<string, Map<number, number>>();

  private constructor() {}

  /** Kafka Streams' Position.emptyPosition(). */
  static emptyPosition(): Position {
    return new Position();
  }

  /** Kafka Streams' Position.fromMap: topic → partition → offset. */
  static fromMap(map: ReadonlyMap<string, ReadonlyMap<number, number>>): Position {
    const p = new Position();
    for (const [topic, partitions] of map)
      for (const [partition, offset] of partitions) p.withComponent(topic, partition, offset);
    return p;
  }

  /** From the JSON `toJSON` gives (what the HTTP plugin sends); a bad shape says what is wrong. */
  static fromJson(json: unknown): Position {
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw new StreamsError(
        `A position must be an object { topic: { partition: offset } }, got ${JSON.stringify(json)}`,
      );
    const p = new Position();
    for (const [topic, partitions] of Object.entries(json as Record<string, unknown>)) {
      if (partitions === null || typeof partitions !== 'object' || Array.isArray(partitions))
        throw new StreamsError(
          `The position of topic '${topic}' must be an object { partition: offset }, got ${JSON.stringify(partitions)}`,
        );
      for (const [partition, offset] of Object.entries(partitions as Record<string, unknown>)) {
        const n = Number(partition);
        if (!/^\d+$/.test(partition) || !Number.isSafeInteger(n))
          throw new StreamsError(
            `Position of topic '${topic}': partition must be a whole number, got ${JSON.stringify(partition)}`,
          );
        if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
          throw new StreamsError(
            `Position of ${topic}-${partition}: offset must be a whole number >= 0, got ${JSON.stringify(offset)}`,
          );
        p.withComponent(topic, n, offset);
      }
    }
    return p;
  }

  /**
   * Sets a component (Kafka Streams' withComponent, which also overwrites): the offset of the last
   * record of `topic`-`partition` written. Returns this.
   */
  withComponent(topic: string, partition: number, offset: number): Position {
    let partitions = this.offsets.get(topic);
    if (partitions === undefined) {
      partitions = new Map();
      this.offsets.set(topic, partitions);
    }
    partitions.set(partition, offset);
    return this;
  }

  /** A new position with the larger offset of the two for each component (Kafka Streams' merge). */
  merge(other: Position | undefined): Position {
    const merged = this.copy();
    if (other === undefined) return merged;
    for (const [topic, partitions] of other.offsets) {
      for (const [partition, offset] of partitions) {
        const mine = merged.offsets.get(topic)?.get(partition);
        if (mine === undefined || offset > mine) merged.withComponent(topic, partition, offset);
      }
    }
    return merged;
  }

  /** Merges `other` into this one (the store's position taking a commit's writes). */
  mergeInPlace(other: Position): void {
    for (const [topic, partitions] of other.offsets) {
      for (const [partition, offset] of partitions) {
        const mine = this.offsets.get(topic)?.get(partition);
        if (mine === undefined || offset > mine) this.withComponent(topic, partition, offset);
      }
    }
  }

  copy(): Position {
    const p = new Position();
    for (const [topic, partitions] of this.offsets) p.offsets.set(topic, new Map(partitions));
    return p;
  }

  getTopics(): string[] {
    return [...this.offsets.keys()];
  }

  /** partition → offset of `topic` (empty when the position has none of it). */
  getPartitionPositions(topic: string): ReadonlyMap<number, number> {
    return new Map(this.offsets.get(topic) ?? []);
  }

  /** The offset of one component, if the position has it. */
  offset(topic: string, partition: number): number | undefined {
    return this.offsets.get(topic)?.get(partition);
  }

  isEmpty(): boolean {
    return this.offsets.size === 0;
  }

  clear(): void {
    this.offsets.clear();
  }

  toJSON(): PositionJson {
    const json: PositionJson = {};
    for (const [topic, partitions] of this.offsets) {
      json[topic] = {};
      for (const [partition, offset] of [...partitions].sort((a, b) => a[0] - b[0]))
        json[topic][partition] = offset;
    }
    return json;
  }

  toString(): string {
    return `Position${JSON.stringify(this.toJSON())}`;
  }
}

/** Kafka Streams' PositionBound: the position a query's answer must at least reflect. */
export class PositionBound {
  private constructor(private readonly bound: Position) {}

  /** No bound: any position is fresh enough. */
  static unbounded(): PositionBound {
    return new PositionBound(Position.emptyPosition());
  }

  /** At least `position`: every component of it for the partition asked. */
  static at(position: Position): PositionBound {
    return new PositionBound(position.copy());
  }

  position(): Position {
    return this.bound.copy();
  }

  isUnbounded(): boolean {
    return this.bound.isEmpty();
  }

  toString(): string {
    return this.isUnbounded() ? 'PositionBound{unbounded}' : `PositionBound{${this.bound}}`;
  }
}

/**
 * Whether a store partition's position satisfies the bound (Kafka Streams' StoreQueryUtils.isPermitted):
 * only the bound's components of the same partition number count, since a task's store holds
 * that partition of each of its input topics; each of those must be reached (offset >= the bound's).
 */
export function isPermitted(position: Position, bound: PositionBound, partition: number): boolean {
  const wanted = bound.position();
  for (const topic of wanted.getTopics()) {
    const needed = wanted.offset(topic, partition);
    if (needed === undefined) continue;
    const seen = position.offset(topic, partition);
    if (seen === undefined || seen < needed) return false;
  }
  return true;
}
