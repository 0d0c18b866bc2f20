// Subject name strategies, named and behaving as the Confluent serializers' (the subjects under
// which a schema is registered and looked up).

/** How the subject of a schema is named: from the topic, whether it is the key, and the record name. */
export type SubjectNameStrategy = (topic: string, isKey: boolean, recordName: string | undefined) => string;

/** `<topic>-key` / `<topic>-value` (Confluent's TopicNameStrategy, the default). */
export const topicNameStrategy: SubjectNameStrategy = (topic, isKey) => `${topic}-${isKey ? 'key' : 'value'}`;

/** The record's full name (RecordNameStrategy): one subject for a record type across topics. */
export const recordNameStrategy: SubjectNameStrategy = (_topic, _isKey, recordName) =>
  `${requireRecordName(recordName, 'RecordNameStrategy')}`;

/** `<topic>-<record full name>` (TopicRecordNameStrategy): several record types per topic. */
export const topicRecordNameStrategy: SubjectNameStrategy = (topic, _isKey, recordName) =>
  `${topic}-${requireRecordName(recordName, 'TopicRecordNameStrategy')}`;

function requireRecordName(recordName: string | undefined, strategy: string): string {
  if (recordName === undefined) {
    throw new Error(
      `${strategy} names the subject after the record, but the schema has no name: give the ` +
        'serde a named schema (an Avro record), or use topicNameStrategy',
    );
  }
  return recordName;
}
