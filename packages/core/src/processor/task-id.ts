/** A task: one partition of one sub-topology. String form `<subtopology>_<partition>`. */
export interface TaskId {
  readonly subtopology: number;
  readonly partition: number;
}

export function taskIdToString(id: TaskId): string {
  return `${id.subtopology}_${id.partition}`;
}
