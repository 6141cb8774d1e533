# torchlint-test: select=TL302
# Reinforcement-learning rollouts: one that evaluates a trained policy (after `q_network.eval()`, in a
# function named for evaluation) with autograd on is an evaluation loop; one that collects experience for
# REINFORCE keeps autograd on because the update needs the log-probabilities' graph, and is not reported;
# one under `torch.no_grad()` is not either.
import gym
import torch
import torch.nn as nn

device = torch.device("cuda")


class QNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)

    def forward(self, x):
        return self.net(x)


def evaluate(model_path, eval_episodes=10):
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")])
    q_network = QNetwork().to(device)
    q_network.load_state_dict(torch.load(model_path))
    q_network.eval()
    obs, _ = envs.reset()
    episodic_returns = []
    while len(episodic_returns) < eval_episodes:  # error: [TL302]
        q_values = q_network(torch.Tensor(obs).to(device))
        actions = torch.argmax(q_values, dim=1).cpu().numpy()
        obs, _, _, _, infos = envs.step(actions)
    return episodic_returns


def evaluate_quietly(model_path):
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")])
    q_network = QNetwork().to(device)
    q_network.eval()
    obs, _ = envs.reset()
    with torch.no_grad():
        for _ in range(100):
            actions = torch.argmax(q_network(torch.Tensor(obs).to(device)), dim=1).cpu().numpy()
            obs, _, _, _, _ = envs.step(actions)


def reinforce(policy, optimizer, env):
    for episode in range(1000):
        state, _ = env.reset()
        log_probs, rewards = [], []
        for t in range(500):
            probs = policy(torch.from_numpy(state).float().to(device))
            dist = torch.distributions.Categorical(probs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            state, reward, done, _, _ = env.step(action.item())
            rewards.append(reward)
            if done:
                break
        loss = -torch.stack(log_probs).sum() * sum(rewards)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
