// Picks the processing guarantee object the config asks for, with its real producers.
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { Kafka } from '../kafka/client.ts';
import { SharedProducer, TransactionalTaskProducer } from '../kafka/producers.ts';
import { AtLeastOnce } from './at-least-once.ts';
import { ExactlyOnce } from './exactly-once.ts';
import { ExactlyOnceV2 } from './exactly-once-v2.ts';
import type { GuaranteeDeps, ProcessingGuarantee } from './processing-guarantee.ts';
import { ThreadTransaction } from './thread-transaction.ts';

export function processingGuaranteeFor(
  config: ResolvedConfig,
  kafka: Kafka,
  deps: GuaranteeDeps,
): ProcessingGuarantee {
  if (config.exactlyOnceV2)
    return new ExactlyOnceV2(
      deps,
      ThreadTransaction.create(kafka, config, { ...deps, seek: (tp) => deps.consumer.seek(tp) }),
    );
  if (config.exactlyOnce)
    return new ExactlyOnce(
      deps,
      (transactionalId) => new TransactionalTaskProducer(kafka, transactionalId, config.producer),
    );
  return new AtLeastOnce(deps, new SharedProducer(kafka, config.producer));
}
