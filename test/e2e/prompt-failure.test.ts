/** A turn that fails before reaching the agent does not lose the queued restore block. */
import { afterAll, describe, expect, it } from "vitest";
import { type Host, makeHost, reply, requestTexts } from "../helpers/host.js";

const KEY = "agent:main:whatsapp:direct:7";

describe("prompt failure", () => {
  let host: Host;
  afterAll(() => host?.cleanup());

  it("puts the drained system events back when the prompt throws", async () => {
    host = await makeHost();
    host.agent.queue(reply.text("ok"));
    await host.runner.handleInbound(KEY, "start");
    const compact = await host.runner.handleInbound(KEY, "/compact");
    expect(compact.compactions[0]!.restore).not.toBeNull();

    host.authStorage.removeRuntimeApiKey(host.faux.provider); // the next prompt is refused
    await expect(host.runner.handleInbound(KEY, "are you there?")).rejects.toThrow();

    host.authStorage.setRuntimeApiKey(host.faux.provider, "faux-key");
    host.agent.queue(reply.text("yes"));
    await host.runner.handleInbound(KEY, "are you there now?");
    const sent = requestTexts(host.agent.chatRequests.at(-1)!).filter((t) => !t.startsWith("[Context: ")).at(-1)!;
    expect(sent).toMatch(/^System: \[[0-9T:-]+Z\] \[Post-compaction checkpoint restore\]/);
    expect(sent.endsWith("are you there now?")).toBe(true);
  });
});
