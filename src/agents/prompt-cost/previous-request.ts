/** The previous request, against which a request's reuse is judged (what it left cached, what both share). */
import { type CostBlock, type CostRequest, firstDifference, type RequestBill } from "./request.js";

type Comparison = Pick<RequestBill, "previousCached" | "sharedPrefix" | "expired" | "divergedAt">;

export class PreviousRequest {
  private blocks: readonly CostBlock[] = [];
  private cachedEnd = 0;
  private at = -Infinity;

  compare(req: CostRequest, cum: readonly number[], ttlMs: number): Comparison {
    const divergedAt = firstDifference(this.blocks, req.blocks);
    return {
      previousCached: this.cachedEnd,
      sharedPrefix: divergedAt > 0 ? cum[divergedAt - 1]! : 0,
      expired: this.blocks.length > 0 && req.at - this.at > ttlMs,
      divergedAt,
    };
  }

  remember(req: CostRequest, cachedEnd: number): void {
    this.blocks = req.blocks;
    this.cachedEnd = cachedEnd;
    this.at = req.at;
  }

  get previousBlocks(): readonly CostBlock[] {
    return this.blocks;
  }
}
