/** Catching what a call throws, for tests that look into the error itself. */
import { PatchsmithError } from '../../src/contract/index.js'

/** What `action` throws; fails the test when it returns. */
export function thrown(action: () => unknown): unknown {
  try {
    action()
  } catch (error) {
    return error
  }
  throw new Error('expected the call to throw')
}

/** The PatchsmithError the promise rejects with; anything else (or success) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<PatchsmithError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof PatchsmithError) return error
    throw error
  }
  throw new Error('expected a failure')
}
