import { cpus, release, totalmem, type } from 'node:os';
import type { MachineInfo } from './results.js';

/** The machine the figures came from: they mean nothing without it. */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryBytes: totalmem(),
    node: process.version,
    os: `${type()} ${release()}`,
    arch: process.arch,
  };
}
