// The Java Kafka Streams side of the word-count benchmark: java/WordCountBench.java, compiled once
// against the broker's Kafka version (scripts/differential/java.ts fetches the jars with mvn and
// runs javac) and started as the app's process, which speaks the child protocol as JSON lines.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { javaCommand, javaToolsAvailable } from '../../scripts/differential/java.ts';
import { repoRoot } from './cluster.ts';
import type { ChildMessage } from './protocol.ts';
import type { Launcher } from './run-app.ts';
import { guaranteeOf, variantOf } from './variants.ts';

const SOURCE = fileURLToPath(new URL('./java/WordCountBench.java', import.meta.url));

/** Builds the app (the first time, mvn fetches Kafka's jars): how to launch it, or why it cannot run. */
export function prepareJavaApp(): { launch: Launcher } | { unavailable: string } {
  if (!javaToolsAvailable()) {
    return { unavailable: 'java, javac and mvn are not all installed (as the differential tests need)' };
  }
  try {
    return { launch: javaLauncher(javaCommand(SOURCE)) };
  } catch (error) {
    return { unavailable: `building ${SOURCE} failed: ${(error as Error).message}` };
  }
}

/** The kernel's clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

function javaLauncher(command: string[]): Launcher {
  const ticks = clockTicks();
  return (args) => {
    const child = spawn(
      'java',
      [
        ...command,
        args.brokers.join(','),
        args.inputTopic,
        args.outputTopic,
        args.appId,
        args.stateDir,
        guaranteeOf(args.kind),
        String(variantOf(args.kind).cacheMaxBytes ?? -1),
        String(ticks),
      ],
      { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    // A stop written after the JVM died fails with EPIPE; the exit already told the channel.
    child.stdin!.on('error', () => {});
    const lines = createInterface({ input: child.stdout! });
    return {
      child,
      send: (message) => child.stdin!.write(`${message.type}\n`),
      onMessage: (listener) =>
        lines.on('line', (line) => {
          if (line.startsWith('{')) listener(JSON.parse(line) as ChildMessage);
          else if (line.trim() !== '') console.log(`  ${args.kind}: ${line}`);
        }),
    };
  };
}
