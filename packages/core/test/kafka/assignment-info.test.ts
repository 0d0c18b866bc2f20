import { describe, expect, it } from 'vitest';
import {
  ASSIGNMENT_INFO_VERSION,
  AssignmentInfoError,
  decodeAssignmentInfo,
  encodeAssignmentInfo,
} from '../../src/kafka/assignment-info.ts';

describe('assignment info (version 2)', () => {
  it('round-trips active and standby tasks and the probing rebalance time', () => {
    const info = { activeTasks: ['0_1'], standbyTasks: ['0_2', '1_0'], nextRebalanceMs: 1_765_000_000_000 };
    expect(decodeAssignmentInfo(encodeAssignmentInfo(info))).toEqual({
      ...info,
      version: ASSIGNMENT_INFO_VERSION,
      errorCode: 0,
    });
    const none = decodeAssignmentInfo(encodeAssignmentInfo({ activeTasks: [], standbyTasks: ['0_0'] }));
    expect(none).toEqual({ version: 2, activeTasks: [], standbyTasks: ['0_0'], errorCode: 0 });
  });

  it('keeps v1’s field for the active tasks and reads v1 as actives only', () => {
    const v2 = encodeAssignmentInfo({ activeTasks: ['0_0', '0_3'], standbyTasks: ['0_1'] });
    expect((JSON.parse(v2.toString()) as { tasks: string[] }).tasks).toEqual(['0_0', '0_3']);
    // What kafka/assignor.ts writes today.
    const v1 = Buffer.from(JSON.stringify({ tasks: ['0_2'] }));
    expect(decodeAssignmentInfo(v1)).toEqual({
      version: 1,
      activeTasks: ['0_2'],
      standbyTasks: [],
      errorCode: 0,
    });
    expect(decodeAssignmentInfo(Buffer.alloc(0))).toEqual({
      version: 1,
      activeTasks: [],
      standbyTasks: [],
      errorCode: 0,
    });
  });

  it('names what is wrong with a malformed one', () => {
    expect(() => decodeAssignmentInfo(Buffer.from([0, 3, 0, 0]))).toThrow(AssignmentInfoError);
    expect(() => decodeAssignmentInfo(Buffer.from([0, 3, 0, 0]))).toThrow(/another client's assignor/);
    expect(() =>
      decodeAssignmentInfo(Buffer.from(JSON.stringify({ version: 2, tasks: [], standbyTasks: [1] }))),
    ).toThrow(/"standbyTasks" must be a list of task ids/);
    expect(() =>
      decodeAssignmentInfo(Buffer.from(JSON.stringify({ version: 2, tasks: [], nextRebalanceMs: -4 }))),
    ).toThrow(/"nextRebalanceMs" must be epoch ms, got -4/);
    expect(() =>
      decodeAssignmentInfo(Buffer.from(JSON.stringify({ version: 2, tasks: [], errorCode: '2' }))),
    ).toThrow(/"errorCode" must be an AssignorError code \(a whole number >= 0\), got "2"/);
    expect(() => decodeAssignmentInfo(Buffer.from(JSON.stringify({ tasks: [], errorCode: -1 })))).toThrow(
      /assignment info v1: "errorCode" must be/,
    );
  });
});

describe("assignment info's error code (Java's AssignorError)", () => {
  it('round-trips a code and writes none for an ordinary assignment', () => {
    const refusal = encodeAssignmentInfo({ activeTasks: [], standbyTasks: [], errorCode: 2 });
    expect(decodeAssignmentInfo(refusal)).toEqual({
      version: 2,
      activeTasks: [],
      standbyTasks: [],
      errorCode: 2,
    });
    for (const ordinary of [
      encodeAssignmentInfo({ activeTasks: ['0_0'], standbyTasks: [] }),
      encodeAssignmentInfo({ activeTasks: ['0_0'], standbyTasks: [], errorCode: 0 }),
    ]) {
      expect(JSON.parse(ordinary.toString())).not.toHaveProperty('errorCode');
      expect(decodeAssignmentInfo(ordinary).errorCode).toBe(0);
    }
  });

  it('reads the code in every version, including the v1 refusal main wrote on 2026-12-06', () => {
    const mainRefusal = Buffer.from(JSON.stringify({ tasks: [], errorCode: 2 }));
    expect(decodeAssignmentInfo(mainRefusal)).toEqual({
      version: 1,
      activeTasks: [],
      standbyTasks: [],
      errorCode: 2,
    });
    const v2 = Buffer.from(JSON.stringify({ version: 2, tasks: ['0_1'], standbyTasks: [], errorCode: 1 }));
    expect(decodeAssignmentInfo(v2).errorCode).toBe(1);
    expect(decodeAssignmentInfo(null).errorCode).toBe(0);
  });
});
