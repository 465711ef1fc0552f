import { describe, expect, test } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.ts';
import type { RunStatus } from '../../src/domain/run.ts';

describe('exit codes', () => {
  test('each cause a run ends with has the code the README documents', () => {
    const documented: Record<RunStatus, number> = {
      completed: 0,
      budget_exhausted: 3,
      payment_required: 4,
      quota_exhausted: 5,
      unauthorized: 6,
      failed: 7,
      // A run the process did not close itself: a bug or a crash, not a cause of its own.
      interrupted: 1,
      running: 1,
    };
    for (const [status, code] of Object.entries(documented))
      expect(exitCodeFor(status as RunStatus), status).toBe(code);
  });
});
