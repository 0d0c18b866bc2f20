/** What the runtime's context adds for the DSL's operators (Kafka Streams' InternalProcessorContext). */
interface DropRecording {
  recordDropped?(reason: string): void;
}

/** Counts a record an operator skipped (late, null key) in the task's dropped records. */
export function droppedRecord(context: object, reason: string): void {
  (context as DropRecording).recordDropped?.(reason);
}
