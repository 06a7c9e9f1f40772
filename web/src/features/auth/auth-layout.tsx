import type { ReactNode } from 'react';

/** The frame of the signed-out pages. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center bg-gray-50 px-4 py-12 sm:items-center">
      <div className="w-full max-w-md space-y-6 rounded-lg border border-gray-200 bg-white p-6 shadow-sm">
        <div>
          <p className="text-sm font-semibold tracking-wide text-indigo-800">Beckon</p>
          <h1 className="mt-1 text-2xl font-semibold text-gray-900">{title}</h1>
        </div>
        {children}
      </div>
    </main>
  );
}
