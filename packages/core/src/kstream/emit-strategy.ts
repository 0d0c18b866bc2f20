/**
 * Kafka Streams' EmitStrategy (KIP-825) for windowed aggregations: `onWindowUpdate()` (the
 * default) forwards every update of a window; `onWindowClose()` forwards each window's final
 * result once, when stream time passes its end plus grace, and nothing before.
 */
export class EmitStrategy {
  private constructor(readonly type: 'on-window-update' | 'on-window-close') {}

  static onWindowUpdate(): EmitStrategy {
    return new EmitStrategy('on-window-update');
  }

  static onWindowClose(): EmitStrategy {
    return new EmitStrategy('on-window-close');
  }
}
