/**
 * The services one process shares across every chat and engine: the debug switch, the slice
 * gate, the system event queues, the clean work-tree readings, the archive worker, the
 * compaction provider's session hints, the pi shell's slots per SessionManager and the replay's
 * lived clock. One object per process (globalSingleton); each service is a field its owner
 * declares (`declare module` augmenting ProcessServices) and creates on first use, so this floor
 * knows none of the layers above it and the object holds nothing unused.
 */
import { globalSingleton } from "./global-singleton.js";

export interface ProcessServices {}

export const processServices = (): ProcessServices => globalSingleton("openclaw.contextManager.services", (): ProcessServices => ({}));
