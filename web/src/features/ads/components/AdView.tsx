import type { AdvertisementsQuery } from '../../../gql/operations';

export type Ad = AdvertisementsQuery['advertisements'][number];

/** One ad's content by type: text, image, video, or html in a sandboxed frame (no scripts). */
export function AdView({ ad }: { ad: Pick<Ad, 'title' | 'type' | 'content'> }) {
  switch (ad.type) {
    case 'text':
      return <p className="ad__text">{ad.content}</p>;
    case 'image':
      return <img className="ad__media" src={ad.content} alt={ad.title} />;
    case 'video':
      return (
        <video
          className="ad__media"
          src={ad.content}
          autoPlay
          muted
          playsInline
          controls
          aria-label={ad.title}
        />
      );
    case 'html':
      return <iframe className="ad__frame" title={ad.title} sandbox="" srcDoc={ad.content} />;
  }
}
