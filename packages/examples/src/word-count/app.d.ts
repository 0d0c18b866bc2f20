import type { Logger } from 'pino';
import { type RunningService } from '../common/service.ts';
import type { WordCountOptions } from './options.ts';
export type RunningWordCount = RunningService;
export declare function startWordCount(options: WordCountOptions, logger: Logger): Promise<RunningWordCount>;
