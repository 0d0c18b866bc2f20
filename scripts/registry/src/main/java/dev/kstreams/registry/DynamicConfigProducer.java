package dev.kstreams.registry;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.context.ApplicationScoped;
import javax.enterprise.inject.Produces;

/**
 * Apicurio's build-time extension that lists the runtime-changeable ("dynamic") config properties
 * is not on Maven Central, so its bean is produced here, empty: the registry then runs with its
 * static configuration only, which is all the kstreams tests need.
 */
@ApplicationScoped
public class DynamicConfigProducer {
  @Produces
  @ApplicationScoped
  DynamicConfigPropertyList dynamicConfigProperties() {
    return new DynamicConfigPropertyList(List.of());
  }
}
