// Type-checked with the program (tsconfig "files"), never run: the types of the emulator and
// import subpaths, which must also pass the `pulumi new` tsconfig.
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from "pulumi-neon-auth/emulator";
import { importFile, type ImportFile } from "pulumi-neon-auth/import";

export async function localApi(options: EmulatorOptions): Promise<EmulatorHandle> {
  const em = await startEmulator({ ...options, port: 0 });
  const url: string = em.url;
  return url.startsWith("http://127.0.0.1:") ? em : Promise.reject(new Error(url));
}

export function domainImport(projectId: string, origin: string): Promise<ImportFile> {
  return importFile([{ kind: "RedirectDomain", name: "app", id: `${projectId}/${origin}` }]);
}
