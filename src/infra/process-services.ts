/**
 * The services one process shares across chats and engines: a field per service, declared by its
 * owner (`declare module`) and made on first use, so this floor knows none of the layers above.
 */
import { globalSingleton } from "./global-singleton.js";

export interface ProcessServices {}

export const processServices = (): ProcessServices => globalSingleton("openclaw.contextManager.services", (): ProcessServices => ({}));
