import {
  BufferConfig,
  type Serde,
  SerdeError,
  Serdes,
  SessionWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  type Topology,
  WindowedSerdes,
} from '@kstreams/core';

export const MINUTE_MS = 60_000;
/** How long after a minute ends a record for it is still counted (out-of-order records). */
export const GRACE_MS = 20_000;
export const SESSION_GAP_MS = 30 * MINUTE_MS;
/** Windows and sessions stay queryable for a day of stream time (the default is size + grace). */
export const RETENTION_MS = 24 * 60 * MINUTE_MS;

/** The per-user, per-minute counts (a window store); queries read it, the final counts go out. */
export const VIEWS_STORE = 'views-per-minute';
/** The user sessions (a session store). */
export const SESSIONS_STORE = 'sessions';
/** The suppression's name: its buffer is the store `final-views-per-minute-store`. */
export const SUPPRESSION = 'final-views-per-minute';

/** A user's session: its page views and the distinct pages seen, sorted. */
export interface Session {
  views: number;
  pages: string[];
}

/**
 * Input values: a page view as JSON, `{"page": "/pricing", ...}`, or the page as plain text.
 * Writes JSON.
 */
export const pageViewSerde: Serde<string> = Serdes.from(
  (page: string) => Buffer.from(JSON.stringify({ page }), 'utf8'),
  (bytes: Buffer) => {
    const text = bytes.toString('utf8');
    if (!text.trimStart().startsWith('{')) return text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new SerdeError(`a page view starting with "{" must be JSON: ${text.slice(0, 80)}`, {
        cause: error,
      });
    }
    const page = (parsed as { page?: unknown }).page;
    if (typeof page !== 'string')
      throw new SerdeError(
        `a JSON page view needs a string "page" field, e.g. {"page":"/pricing"}: ${text.slice(0, 80)}`,
      );
    return page;
  },
);

export const sessionSerde: Serde<Session> = Serdes.Json<Session>();

function withPage(session: Session, page: string): Session {
  const pages = session.pages.includes(page) ? session.pages : [...session.pages, page].sort();
  return { views: session.views + 1, pages };
}

function merged(a: Session, b: Session): Session {
  return { views: a.views + b.views, pages: [...new Set([...a.pages, ...b.pages])].sort() };
}

/**
 * Page views keyed by user, value the page: (a) views per user per minute, tumbling windows with
 * a grace, suppressed to one final count per window, written to `output` with Java's
 * time-windowed key layout and 64-bit counts; (b) user sessions (30 minutes of inactivity end a
 * session) with their views and pages, in the session store `sessions`.
 */
export function pageViewsTopology(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  const views = builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: pageViewSerde })
    .groupByKey({ keySerde: Serdes.String(), valueSerde: pageViewSerde });
  views
    .windowedBy(TimeWindows.ofSizeAndGrace(MINUTE_MS, GRACE_MS))
    .count({ storeName: VIEWS_STORE, keySerde: Serdes.String(), retentionMs: RETENTION_MS })
    .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName(SUPPRESSION))
    .toStream()
    .to(output, {
      keySerde: WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), MINUTE_MS),
      valueSerde: Serdes.Long(),
    });
  views.windowedBy(SessionWindows.ofInactivityGapAndGrace(SESSION_GAP_MS, GRACE_MS)).aggregate<Session>(
    () => ({ views: 0, pages: [] }),
    (_user, page, session) => withPage(session, page),
    (_user, a, b) => merged(a, b),
    {
      storeName: SESSIONS_STORE,
      keySerde: Serdes.String(),
      valueSerde: sessionSerde,
      retentionMs: RETENTION_MS,
    },
  );
  return builder.build();
}
