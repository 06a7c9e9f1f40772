import DOMPurify from 'dompurify';
import { marked } from 'marked';

// Links in messages come from agents: open them in a new tab, without giving it this page.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/** An image the page may show: inline data, or from this origin (nothing a sender learns from). */
function showable(src: string): boolean {
  const url = URL.parse(src, window.location.href);
  return url !== null && (url.protocol === 'data:' || url.origin === window.location.origin);
}

/**
 * A remote image becomes a link to it: loading it would tell its sender who opened the item and
 * when (a tracking pixel), so the person decides. The page's Content-Security-Policy refuses
 * remote images anyway (img-src 'self' data: blob:, server/src/http/gateway.ts).
 */
function remoteImagesAsLinks(root: DocumentFragment): void {
  for (const image of root.querySelectorAll('img')) {
    const src = image.getAttribute('src') ?? '';
    if (showable(src)) continue;
    const url = URL.parse(src, window.location.href);
    const alt = image.getAttribute('alt')?.trim();
    const label = `Image: ${alt || url?.hostname || 'remote'}`;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      image.replaceWith(document.createTextNode(`[${label}]`));
      continue;
    }
    const link = document.createElement('a');
    link.href = url.href;
    link.textContent = label;
    link.title = `Remote image, not loaded: ${url.href}`;
    link.target = '_blank';
    link.rel = 'noopener noreferrer nofollow';
    link.className = 'remote-image';
    image.replaceWith(link);
  }
}

/**
 * Markdown from an agent, as HTML that is safe to insert (scripts, handlers and styles removed,
 * remote images as links).
 */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false, gfm: true, breaks: true });
  const fragment = DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form'],
    RETURN_DOM_FRAGMENT: true,
  });
  remoteImagesAsLinks(fragment);
  const container = document.createElement('div');
  container.append(fragment);
  return container.innerHTML;
}
