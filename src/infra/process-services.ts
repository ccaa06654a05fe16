/** The services one process shares: a field per service, declared by its owner (`declare module`). */
import { globalSingleton } from "./global-singleton.js";

export interface ProcessServices {}

export const processServices = (): ProcessServices => globalSingleton("openclaw.contextManager.services", (): ProcessServices => ({}));
