/*
 * bcryptprimitives.dll for Deno's Windows build under Wine 8.0, placed beside deno.exe. It bridges two gaps
 * of Wine 8.0 (docs/platforms.md, "Windows under Wine"):
 * - Wine 8.0 has no bcryptprimitives.dll, whose ProcessPrng Deno imports: it is BCryptGenRandom here.
 * - Wine 8.0 refuses VirtualAlloc2 with MEM_RESERVE_PLACEHOLDER, which V8 uses when kernelbase exports
 *   MapViewOfFile3: while this DLL loads (before V8 starts) that export's name is changed in kernelbase's
 *   export table, so V8's GetProcAddress finds nothing and V8 takes its path for older Windows.
 * Build: x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bridge.c -lbcrypt
 */
#include <windows.h>
#include <bcrypt.h>
#include <string.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x40000000 ? 0x40000000 : (ULONG)size;
    if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) return FALSE;
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}

/* Renames `name` in the module's export names by changing its last character to `replacement`, a character
 * that keeps the names sorted (the loader looks names up by binary search). */
static void hide_export(const char *module, const char *name, char replacement) {
  BYTE *base = (BYTE *)GetModuleHandleA(module);
  if (base == NULL) return;
  IMAGE_NT_HEADERS *nt = (IMAGE_NT_HEADERS *)(base + ((IMAGE_DOS_HEADER *)base)->e_lfanew);
  IMAGE_DATA_DIRECTORY dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
  if (dir.VirtualAddress == 0) return;
  IMAGE_EXPORT_DIRECTORY *exports = (IMAGE_EXPORT_DIRECTORY *)(base + dir.VirtualAddress);
  DWORD *names = (DWORD *)(base + exports->AddressOfNames);
  for (DWORD i = 0; i < exports->NumberOfNames; i++) {
    char *text = (char *)(base + names[i]);
    if (strcmp(text, name) != 0) continue;
    char *last = text + strlen(text) - 1;
    DWORD old;
    if (VirtualProtect(last, 1, PAGE_READWRITE, &old)) {
      *last = replacement;
      VirtualProtect(last, 1, old, &old);
    }
  }
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved) {
  (void)instance;
  (void)reserved;
  if (reason == DLL_PROCESS_ATTACH) hide_export("kernelbase.dll", "MapViewOfFile3", '2');
  return TRUE;
}
