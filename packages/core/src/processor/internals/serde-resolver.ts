import { ConfigError } from '../../errors.ts';
import type { Serde } from '../../serdes/serde.ts';
import { withDefaultInner } from '../../serdes/windowed-serdes.ts';
import type { AnySerde, SerdeWrapper } from './internal-topology-builder.ts';

export interface DefaultSerdes {
  /** For sources, sinks and stores that were given no serde (Kafka's default.key.serde). */
  defaultKeySerde?: Serde<unknown> | undefined;
  defaultValueSerde?: Serde<unknown> | undefined;
}

/**
 * A serde made of others, some of which may be missing until the config's defaults are known (a
 * stream-stream join's shared store holds both sides' values): resolution completes it.
 */
export interface DefaultsAwareSerde extends Serde<unknown> {
  withDefaults(defaults: DefaultSerdes): Serde<unknown>;
  /** The serdes it is made of, the defaults filled in: what `Serde.init` is called on. */
  innerSerdes?(defaults: DefaultSerdes): Serde<unknown>[];
}

export function isDefaultsAware(serde: Serde<unknown>): serde is DefaultsAwareSerde {
  return typeof (serde as Partial<DefaultsAwareSerde>).withDefaults === 'function';
}

/** The node's or store's own serde, else the config's default; neither is a ConfigError naming the place. */
export function resolveSerde(
  defaults: DefaultSerdes,
  serde: AnySerde | undefined,
  part: 'key' | 'value',
  where: string,
  wrapper?: SerdeWrapper,
): AnySerde {
  const resolved =
    serde === undefined
      ? part === 'key'
        ? defaults.defaultKeySerde
        : defaults.defaultValueSerde
      : isDefaultsAware(serde)
        ? (serde.withDefaults(defaults) as AnySerde)
        : (withDefaultInner(serde, defaults.defaultKeySerde) as AnySerde);
  if (resolved === undefined) {
    const option = part === 'key' ? 'keySerde' : 'valueSerde';
    throw new ConfigError(
      `No ${part} serde for ${where}: pass ${option} to the operation that created it ` +
        `(stream(), to(), groupBy(), Materialized, ...) or set default${part === 'key' ? 'Key' : 'Value'}Serde in the config`,
    );
  }
  return wrapper === undefined ? resolved : wrapper(resolved);
}
