// Type-checked with the program (tsconfig "files"), never run: the emulator subpath's types.
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from "pulumi-neon-auth/emulator";

export async function localApi(options: EmulatorOptions): Promise<EmulatorHandle> {
  const em = await startEmulator({ ...options, port: 0 });
  const url: string = em.url;
  return url.startsWith("http://127.0.0.1:") ? em : Promise.reject(new Error(url));
}
