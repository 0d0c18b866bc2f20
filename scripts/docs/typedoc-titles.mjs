// A TypeDoc plugin: a project document is named after its file (getting-started); in the site's
// navigation the guide's own first heading reads better. The name changes once the pages have
// their URLs, so these stay the file names (documents/getting-started.html). GitHub shows the
// markdown as it is.
import { ReflectionKind, RendererEvent } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(
    RendererEvent.BEGIN,
    (event) => {
      for (const document of event.project.getReflectionsByKind(ReflectionKind.Document)) {
        const text = document.content.map((part) => part.text).join('');
        const heading = text.match(/^# (.+)$/m);
        if (heading) document.name = heading[1].trim();
      }
    },
    -100,
  );
}
