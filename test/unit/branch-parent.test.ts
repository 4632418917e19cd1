/**
 * Refresh of a NeonAuth child, with the API faked: a 404 from `GET …/auth` forgets the child only
 * when the branch answers (it is visible and lacks Neon Auth); a branch that answers 404 too is an
 * error and nothing is forgotten; a replaced integration (new identity) forgets it. Its delete
 * takes a 404 as "gone" by the same rule.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { NeonApiError } from "../../src/client";
import { redirectDomainHandler } from "../../src/kinds/redirectDomain";
import { fakeContext } from "./fake-context";

const fake = vi.hoisted(() => ({ getBranchAuth: vi.fn(), getBranch: vi.fn(), listBranchDomains: vi.fn(), deleteBranchDomains: vi.fn() }));
const ctx = () =>
  fakeContext({
    getBranch: fake.getBranch,
    branchAuth: { getBranchAuth: fake.getBranchAuth, listBranchDomains: fake.listBranchDomains, deleteBranchDomains: fake.deleteBranchDomains },
  });

const P = "p-unit";
const B = "br-unit-1";
const ID = `${P}/${B}/https://app.example.com`;
const IN = { authProviderProjectId: "ap-1", createdAt: "2026-11-01T10:00:00Z" };
const props = { projectId: P, branchId: B, integration: IN, domain: "https://app.example.com", authProvider: "better_auth" };
const record = { auth_provider: "better_auth", auth_provider_project_id: "ap-1", created_at: IN.createdAt, branch_id: B, db_name: "neondb" };
const notFound = (path: string) =>
  new NeonApiError({ method: "GET", path, attempts: 1, status: 404, code: "", neonMessage: "not found", retryable: false, mayHaveActed: false });

beforeEach(() => {
  // Shared reads are kept for a moment per project and branch: each test uses a branch of its own.
  fake.getBranchAuth.mockReset();
  fake.getBranch.mockReset();
  fake.listBranchDomains.mockReset();
  fake.deleteBranchDomains.mockReset();
});

describe("refresh of a NeonAuth child", () => {
  it("keeps a listed domain, and reads it from the branch's own list", async () => {
    fake.getBranchAuth.mockResolvedValue(record);
    fake.listBranchDomains.mockResolvedValue({ domains: [{ domain: "https://app.example.com", auth_provider: "better_auth" }] });
    expect(await redirectDomainHandler.read(ID, props, ctx())).toEqual({ id: ID, props, inputs: props });
    expect(fake.listBranchDomains).toHaveBeenCalledWith({ project_id: P, branch_id: B });
  });

  it("forgets it when the branch is visible and has no Neon Auth", async () => {
    fake.getBranchAuth.mockRejectedValue(notFound("/auth"));
    fake.getBranch.mockResolvedValue({ id: B });
    expect(await redirectDomainHandler.read(`${P}/br-unit-2/https://app.example.com`, { ...props, branchId: "br-unit-2" }, ctx())).toEqual({});
  });

  it("fails, forgetting nothing, when the branch answers 404 too", async () => {
    fake.getBranchAuth.mockRejectedValue(notFound("/auth"));
    fake.getBranch.mockRejectedValue(notFound("/branch"));
    await expect(redirectDomainHandler.read(`${P}/br-unit-3/https://app.example.com`, { ...props, branchId: "br-unit-3" }, ctx())).rejects.toThrow(
      `RedirectDomain: refresh cannot tell whether project ${P} still exists`,
    );
  });

  it("forgets it when Neon Auth on the branch was replaced (a new identity)", async () => {
    fake.getBranchAuth.mockResolvedValue({ ...record, auth_provider_project_id: "ap-2" });
    expect(await redirectDomainHandler.read(`${P}/br-unit-4/https://app.example.com`, { ...props, branchId: "br-unit-4" }, ctx())).toEqual({});
  });
});

describe("delete of a NeonAuth child", () => {
  it("a 404 is gone when the branch answers: the domain or its Neon Auth went before us", async () => {
    fake.deleteBranchDomains.mockRejectedValue(notFound("/auth/domains"));
    fake.getBranch.mockResolvedValue({ id: "br-unit-5" });
    await expect(redirectDomainHandler.delete!(`${P}/br-unit-5/https://app.example.com`, { ...props, branchId: "br-unit-5" }, ctx())).resolves.toBeUndefined();
    expect(fake.getBranch).toHaveBeenCalledWith(P, "br-unit-5");
  });

  it("fails, keeping it in the state, when the branch answers 404 too (another account's key)", async () => {
    fake.deleteBranchDomains.mockRejectedValue(notFound("/auth/domains"));
    fake.getBranch.mockRejectedValue(notFound("/branch"));
    await expect(redirectDomainHandler.delete!(`${P}/br-unit-6/https://app.example.com`, { ...props, branchId: "br-unit-6" }, ctx())).rejects.toThrow(
      `RedirectDomain: delete cannot tell whether project ${P} still exists: it answers 404 Not Found to this API key (a wrong key or account, ` +
        "or a deleted project). Nothing was removed from the stack's state. Check neon-auth:apiKey (or NEON_API_KEY) and run the command again.",
    );
  });

  it("any other error is the delete's own, with no extra request", async () => {
    fake.deleteBranchDomains.mockRejectedValue(
      new NeonApiError({ method: "DELETE", path: "/auth/domains", attempts: 4, status: 503, code: "", neonMessage: "down", retryable: true, mayHaveActed: true }),
    );
    await expect(redirectDomainHandler.delete!(`${P}/br-unit-7/https://app.example.com`, { ...props, branchId: "br-unit-7" }, ctx())).rejects.toThrow(/503/);
    expect(fake.getBranch).not.toHaveBeenCalled();
  });
});
