/** What every store handed to a processor has. Key-value stores today; window stores later. */
export interface StateStore {
  readonly name: string;
}
