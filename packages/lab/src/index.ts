export { type CellResult, runCell, SCENARIOS, type Scenario, type ScenarioId } from './cell.ts';
export { prepareChildren } from './child.ts';
export { CONFIGS, type ConfigId, type LabConfig } from './configs.ts';
export { type LabContext, openLab } from './context.ts';
export { type InFlightResult, measureInFlight } from './inflight.ts';
export { isBad, type LabResults, runLab, runLabCell } from './matrix.ts';
export { cellText, markdown, svgChart, terminalMatrix } from './render.ts';
export type { Workload } from './workload.ts';
