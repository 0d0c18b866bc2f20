import { InMemoryKeyValueStore } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { MeteredTransactionalBuffer } from '../../src/metrics/metered-buffer.ts';
import { Sensor } from '../../src/metrics/sensor.ts';
import { StreamsMetricsRecorder } from '../../src/metrics/streams-metrics-recorder.ts';

describe('Sensor', () => {
  it('gives the rate, average and max over the last two 30 s samples, and a running total', () => {
    let now = 0;
    const s = new Sensor(() => now);
    expect(s.rate()).toBe(0);
    expect(s.avg()).toBeNaN();
    s.record(100, 50); // 100 events that took 50 ms together
    now = 10_000;
    s.record(100, 150);
    expect(s.total).toBe(200);
    expect(s.rate()).toBeCloseTo(20, 5); // 200 events in 10 s
    expect(s.avg()).toBeCloseTo(1, 5);
    expect(s.max()).toBeCloseTo(1.5, 5);
    // Two windows later the old samples have aged out; the total stays.
    now = 100_000;
    expect(s.rate()).toBe(0);
    expect(s.max()).toBeNaN();
    expect(s.total).toBe(200);
  });

  it('counts untimed events for the rate but not for the average', () => {
    let now = 0;
    const s = new Sensor(() => now);
    s.count(9);
    s.record(1, 4);
    now = 1_000;
    expect(s.rate()).toBeCloseTo(10, 5);
    expect(s.avg()).toBe(4);
  });
});

describe('store metrics (debug level)', () => {
  it('are not recorded at info level', () => {
    expect(new StreamsMetricsRecorder('info').storeOperations('0_0', 'counts')).toBeUndefined();
  });

  it('count every put and get of the metered buffer, time a sample of them, and time each flush', async () => {
    const recorder = new StreamsMetricsRecorder('debug');
    const ops = recorder.storeOperations('0_0', 'counts')!;
    const store = new InMemoryKeyValueStore('counts');
    await store.open();
    const buffer = new MeteredTransactionalBuffer(store, {}, ops);
    for (let i = 0; i < 40; i++) buffer.put(Buffer.from(`k${i}`), Buffer.from('v'));
    for (let i = 0; i < 20; i++) expect(buffer.get(Buffer.from(`k${i}`))?.toString()).toBe('v');
    await buffer.commit();
    expect(ops.put.total).toBe(40);
    expect(ops.get.total).toBe(20);
    expect(ops.flush.total).toBe(1);
    expect(ops.put.avg()).toBeGreaterThanOrEqual(0);
    expect(ops.flush.max()).toBeGreaterThan(0);
    expect(store.get(Buffer.from('k39'))?.toString()).toBe('v');
    expect(recorder.stores.size).toBe(1);
  });
});
