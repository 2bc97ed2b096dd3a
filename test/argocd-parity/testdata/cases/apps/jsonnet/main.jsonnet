function(replicas=1, name='guestbook')
  [{
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: name, labels: { tier: std.extVar('tier') } },
    spec: { replicas: replicas, selector: { matchLabels: { app: name } },
            template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: name, image: 'nginx' }] } } },
  }]
